/** How long a preview link may live, in seconds (POST /v1/posts/:slug/preview-link `expires_in`). */
export const PREVIEW_LINK_SECONDS = { default: 7 * 86_400, min: 60, max: 30 * 86_400 } as const;
