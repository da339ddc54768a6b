/**
 * A reader's page load as a browser without JavaScript makes it over real HTTP: the page, then
 * the beacon image the page names, with the Referer a browser sends (the page's own address).
 */
import { expect } from 'vitest';
import { visit, type Visit } from '../../bench/harness/visit.js';

export const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
export const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** The beacon path an HTML page names, or null. */
export function beaconOf(html: string): string | null {
  const match = /<img src="(\/_folio\/view\.gif[^"]*)"/.exec(html);
  return match ? match[1]!.replaceAll('&amp;', '&') : null;
}

export interface LoadOptions {
  userAgent?: string;
  /** The page request's Referer (a link from another site). */
  referer?: string;
  headers?: Record<string, string>;
  method?: string;
}

/** Loads `path` on `host` (`<blog>.localhost:3000`), then its beacon; returns both answers. */
export async function loadPage(baseUrl: string, host: string, path: string, options: LoadOptions = {}): Promise<{ page: Visit; beacon: Visit | null }> {
  const ua = options.userAgent ?? CHROME_UA;
  const page = await visit(baseUrl, host, path, {
    headers: { 'user-agent': ua, ...(options.referer ? { referer: options.referer } : {}), ...options.headers },
    ...(options.method ? { method: options.method } : {}),
  });
  expect(page.status, `${host}${path}`).toBe(200);
  const src = beaconOf(page.text);
  if (src === null) return { page, beacon: null };
  const beacon = await visit(baseUrl, host, src, {
    headers: { 'user-agent': ua, referer: `http://${host}${path}`, ...options.headers },
    ...(options.method ? { method: options.method } : {}),
  });
  return { page, beacon };
}
