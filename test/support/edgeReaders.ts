/**
 * Readers of a published blog behind a caching edge (docs/analytics.md): real Chromium loading
 * pages by the blog's own address, which `--host-resolver-rules` sends to the edge on loopback,
 * and plain HTTP loads from chosen loopback addresses for what a browser cannot pick (its address).
 */
import { expect } from 'vitest';
import type { Browser, BrowserContextOptions, Response } from 'playwright-core';
import { launchChromium } from '../../bench/harness/chromium.js';
import { visit } from '../../bench/harness/visit.js';
import { beaconOf } from './readerVisits.js';

export const MOBILE_SAFARI_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
export const EDGE_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';

/** A loaded machine may take long to answer; every wait is on a condition, bounded only by this. */
const WAIT_MS = 120_000;

/** Chromium whose every lookup of `hostname` (a blog's host, without port) answers 127.0.0.1. */
export function launchChromiumFor(hostname: string): Promise<Browser> {
  return launchChromium([`--host-resolver-rules=MAP ${hostname} 127.0.0.1`]);
}

export interface BeaconAnswer {
  status: number;
  headers: Record<string, string>;
}

/** One page load in the browser, as the edge and the browser saw it. */
export interface BrowserLoad {
  status: number;
  /** The page response's headers (X-Cache says whether the edge's cache served it). */
  pageHeaders: Record<string, string>;
  /** Beacon requests the load made, answered or not. */
  beaconRequests: number;
  /** The answers to them. */
  beacons: BeaconAnswer[];
  /** The beacon <img> finished loading (so its request reached the server and was answered). */
  imageComplete: boolean;
}

export interface BrowserReader {
  /** Loads `path` in a fresh tab; `reload` loads it again in the same tab (F5). */
  load(path: string, options?: { reload?: boolean }): Promise<BrowserLoad[]>;
  /** Cookies the browser holds for any site, after the loads so far. */
  cookies(): Promise<number>;
  close(): Promise<void>;
}

const isBeacon = (url: string): boolean => new URL(url).pathname === '/_folio/view.gif';

/**
 * A reader: one browser context (its own cache and cookie jar, none shared with other readers)
 * with the given user agent and extra headers, reading pages of `origin`.
 */
export async function browserReader(browser: Browser, origin: string, options: BrowserContextOptions): Promise<BrowserReader> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);

  async function once(tab: Awaited<ReturnType<typeof context.newPage>>, go: () => Promise<Response | null>): Promise<BrowserLoad> {
    let beaconRequests = 0;
    const answers: Response[] = [];
    const onRequest = (request: { url(): string }): void => {
      if (isBeacon(request.url())) beaconRequests += 1;
    };
    const onResponse = (response: Response): void => {
      if (isBeacon(response.url())) answers.push(response);
    };
    tab.on('request', onRequest);
    tab.on('response', onResponse);
    // Waited on below rather than trusting that the response event precedes 'load'.
    const beaconAnswered = tab.waitForResponse((response) => isBeacon(response.url()));
    beaconAnswered.catch(() => undefined);
    // 'load' waits for the page's images, the beacon among them.
    const page = await go();
    expect(page, 'the navigation got a response').not.toBeNull();
    const imageComplete = await tab.evaluate(() => (document.querySelector('img[src^="/_folio/view.gif"]') as HTMLImageElement | null)?.complete ?? false);
    // A page without a loaded beacon fails the caller's checks at once instead of waiting here.
    if (imageComplete) await beaconAnswered;
    tab.off('request', onRequest);
    tab.off('response', onResponse);
    return {
      status: page!.status(),
      pageHeaders: await page!.allHeaders(),
      beaconRequests,
      beacons: await Promise.all(answers.map(async (a) => ({ status: a.status(), headers: await a.allHeaders() }))),
      imageComplete,
    };
  }

  return {
    load: async (path, loadOptions = {}) => {
      const tab = await context.newPage();
      const loads = [await once(tab, () => tab.goto(`${origin}${path}`, { waitUntil: 'load' }))];
      if (loadOptions.reload) loads.push(await once(tab, () => tab.reload({ waitUntil: 'load' })));
      await tab.close();
      return loads;
    },
    cookies: async () => (await context.cookies()).length,
    close: () => context.close(),
  };
}

export interface ReadOptions {
  /** Load the page once more in the same tab (F5). */
  reload?: boolean;
  /** Headers the browser adds to every request (X-Forwarded-For, to spoof an address). */
  headers?: Record<string, string>;
  /** A phone: small viewport, touch, mobile layout. */
  mobile?: boolean;
}

/** A fresh reader with `userAgent` loads `path` (and reloads it); its loads and cookies after. */
export async function readAs(
  browser: Browser,
  origin: string,
  path: string,
  userAgent: string,
  options: ReadOptions = {},
): Promise<{ loads: BrowserLoad[]; cookies: number }> {
  const reader = await browserReader(browser, origin, {
    userAgent,
    ...(options.headers ? { extraHTTPHeaders: options.headers } : {}),
    ...(options.mobile ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}),
  });
  try {
    const loads = await reader.load(path, { reload: options.reload ?? false });
    return { loads, cookies: await reader.cookies() };
  } finally {
    await reader.close();
  }
}

/**
 * One beacon request per load, answered by Folio through the edge: a GIF no cache keeps, no
 * cookie. `xCache`: the X-Cache the edge gives a request it never looked up in its cache.
 */
export function expectBeaconPassed(load: BrowserLoad, what: string, xCache: string | undefined): void {
  expect(load.status, what).toBe(200);
  expect(load.beaconRequests, `${what}: beacon requests`).toBe(1);
  expect(load.imageComplete, `${what}: beacon image loaded`).toBe(true);
  const beacon = load.beacons[0]!;
  expect(beacon.status, what).toBe(200);
  expect(beacon.headers['content-type'], what).toBe('image/gif');
  expect(beacon.headers['cache-control'], what).toBe('no-store');
  expect(beacon.headers['x-cache'], what).toBe(xCache);
  expect(beacon.headers['set-cookie'], what).toBeUndefined();
}

/**
 * A load without a browser from the loopback address `from` (127.0.0.x): the page through the
 * edge, then the beacon it names with the Referer a browser sends. Returns the beacon's answer.
 */
export async function plainLoad(
  edgePort: number,
  host: string,
  path: string,
  options: { userAgent: string; from: string; headers?: Record<string, string> },
): Promise<BeaconAnswer> {
  const edge = `http://127.0.0.1:${edgePort}`;
  const headers = { 'user-agent': options.userAgent, ...options.headers };
  const page = await visit(edge, host, path, { headers, localAddress: options.from });
  expect(page.status, path).toBe(200);
  const src = beaconOf(page.text);
  expect(src, `${path} names its beacon`).not.toBeNull();
  const beacon = await visit(edge, host, src!, { headers: { ...headers, referer: `http://${host}${path}` }, localAddress: options.from });
  return {
    status: beacon.status,
    headers: Object.fromEntries(Object.entries(beacon.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')])),
  };
}
