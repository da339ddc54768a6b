/** The public pages of preview links (src/http/previewPages.ts), served outside the route table, as the OpenAPI document describes them. */
import { ERROR_REF, examplesOf, RATE_LIMIT_HEADERS, REQUEST_ID_HEADER, TRANSPORT_ERRORS } from './responseParts.js';

export const previewPaths: Record<string, Record<string, unknown>> = {
  '/preview/{token}': {
    get: {
      operationId: 'openPreviewLink',
      summary: "A preview link's page: the post as it is now, with the blog's theme",
      description:
        'The `url` of POST /v1/posts/{slug}/preview-link. No key: the token is the permission. Answers `Cache-Control: private, no-store`, `X-Robots-Tag: noindex, nofollow` and a Content-Security-Policy that runs no script; the page is never counted as a view. An unknown, expired or revoked token, or a deleted post, is the same 404 `{error, message}`. Limited per client address.',
      tags: ['previews'],
      security: [],
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The secret part of the link' }],
      responses: {
        '200': {
          description: 'The post page',
          headers: { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS },
          content: { 'text/html': { schema: { type: 'string' }, example: examplesOf('openPreviewLink').response } },
        },
        ...TRANSPORT_ERRORS,
        '404': ERROR_REF,
        '429': ERROR_REF,
      },
    },
  },
  '/preview/assets/{file}': {
    get: {
      operationId: 'getPreviewAsset',
      summary: "A theme asset a preview page loads (cached for a year: the name holds the content's hash)",
      description: 'Named by the preview page itself, so a preview works for a blog that was never published. Any other name is 404.',
      tags: ['previews'],
      security: [],
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, description: 'Hashed file name, e.g. `site.3f9a1c2b.css`' }],
      responses: {
        '200': {
          description: 'The file',
          headers: REQUEST_ID_HEADER,
          content: { 'text/css': { schema: { type: 'string' }, example: examplesOf('getPreviewAsset').response } },
        },
        ...TRANSPORT_ERRORS,
        '404': ERROR_REF,
      },
    },
  },
};
