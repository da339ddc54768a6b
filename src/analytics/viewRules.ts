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

/** isbot's verdicts on recent user agents: one reader's page loads repeat theirs, and isbot runs one large pattern. */
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 2_000;

function isBot(userAgent: string): boolean {
  const known = verdicts.get(userAgent);
  if (known !== undefined) return known;
  const verdict = userAgent.trim() === '' || isbot(userAgent);
  // Bounded: past it the map starts again, so hostile user agents cannot grow memory.
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(userAgent, verdict);
  return verdict;
}

/**
 * Builds isbot's pattern now: its first use compiles one large regular expression, which would
 * otherwise hold the event loop for the first reader's load.
 */
export function prepareViewRules(): void {
  isBot('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36');
}

/** Why a load is not a view, or null when it is one. */
export function notCounted(headers: ViewHeaders): NotCounted | null {
  // HEAD (and anything but GET) reads no page: link checkers and monitors.
  if (headers.method !== 'GET') return 'method';
  // No user agent at all is a script, never a browser; isbot keeps the list of crawlers.
  if (isBot(headers.userAgent)) return 'bot';
  // A prefetch or prerender may never be shown; a shown prerender is not re-requested either,
  // so undercounting it is the price of never counting pages nobody saw.
  if (/prefetch|prerender/i.test(headers.secPurpose) || /prefetch|prerender/i.test(headers.purpose) || /prefetch/i.test(headers.xMoz)) return 'prefetch';
  return null;
}
