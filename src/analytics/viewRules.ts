/** Which loads are views (docs/analytics.md "What is counted"): pure rules over request headers. */
import { isbot } from 'isbot';

export interface ViewHeaders {
  method: string;
  userAgent: string;
  /** `Sec-Purpose` (Chromium, Firefox: `prefetch`, `prefetch;prerender`). */
  secPurpose: string;
  /** `Purpose` (older Chromium and Safari prefetches). */
  purpose: string;
  /** `X-Moz` (older Firefox prefetches). */
  xMoz: string;
}

export type NotCounted = 'method' | 'bot' | 'prefetch';

/** Why a load is not a view, or null when it is one. */
export function notCounted(headers: ViewHeaders): NotCounted | null {
  // HEAD (and anything but GET) reads no page: link checkers and monitors.
  if (headers.method !== 'GET') return 'method';
  // No user agent at all is a script, never a browser; isbot keeps the list of crawlers.
  if (headers.userAgent.trim() === '' || isbot(headers.userAgent)) return 'bot';
  // A prefetch or prerender may never be shown; a shown prerender is not re-requested either,
  // so undercounting it is the price of never counting pages nobody saw.
  if (/prefetch|prerender/i.test(headers.secPurpose) || /prefetch|prerender/i.test(headers.purpose) || /prefetch/i.test(headers.xMoz)) return 'prefetch';
  return null;
}
