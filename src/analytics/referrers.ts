/**
 * Where readers came from, without JavaScript (docs/analytics.md "Referrers"): a host, or the
 * page address's `ref`/`source`/`utm_source` value; never a full URL.
 */

const SOURCE_PARAMS = ['ref', 'source', 'utm_source'] as const;
const MAX_SOURCE = 100;

/** A source label as stored: lower-case, no scheme or path, letters, digits, `.`, `-`, `_` only. */
export function sourceLabel(raw: string): string | null {
  let value = raw.trim().toLowerCase();
  value = value.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  value = value.split(/[/?#]/, 1)[0] ?? '';
  value = value.replace(/^www\./, '').replace(/[^\p{L}\p{N}._-]+/gu, '');
  value = value.slice(0, MAX_SOURCE);
  return value === '' ? null : value;
}

/** The `ref`/`source`/`utm_source` of a page address (first one set), as a source label. */
export function sourceOfPage(pageUrl: URL): string | null {
  for (const name of SOURCE_PARAMS) {
    const value = pageUrl.searchParams.get(name);
    if (value) return sourceLabel(value);
  }
  return null;
}

/** A URL, or null when the header is not an http(s) URL. */
export function parseUrl(header: string): URL | null {
  if (header === '' || header.length > 4096) return null;
  try {
    const url = new URL(header);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The host of an external `Referer` (not the page's own host), or null. */
export function externalHost(referer: string, ownHost: string): string | null {
  const url = parseUrl(referer);
  if (!url) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === ownHost) return null;
  return sourceLabel(host);
}

const REMEMBER_MS = 60_000;
const MAX_REMEMBERED = 10_000;

/**
 * The external referrer of a page the site server answered, kept for its beacon (which sees
 * only the page as its Referer): per visitor hash and path, for a minute, at most MAX_REMEMBERED.
 */
export class RecentReferrers {
  private readonly entries = new Map<string, { host: string; at: number }>();

  remember(visitor: string, path: string, host: string, now: number): void {
    const key = `${visitor}\0${path}`;
    this.entries.delete(key);
    if (this.entries.size >= MAX_REMEMBERED) this.forgetOld(now);
    // Still full of fresh entries (a flood): the oldest goes, so memory stays bounded.
    if (this.entries.size >= MAX_REMEMBERED) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { host, at: now });
  }

  /** The remembered host of this load, once: a reload without a referrer gets none. */
  take(visitor: string, path: string, now: number): string | null {
    const key = `${visitor}\0${path}`;
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    return now - entry.at <= REMEMBER_MS ? entry.host : null;
  }

  get size(): number {
    return this.entries.size;
  }

  private forgetOld(now: number): void {
    // Insertion order is time order: stop at the first fresh entry.
    for (const [key, entry] of this.entries) {
      if (now - entry.at <= REMEMBER_MS) break;
      this.entries.delete(key);
    }
  }
}
