/**
 * The counting of loads (docs/analytics.md): which loads are views, whose they are (the day's
 * visitor hash) and where they came from, into the bounded in-memory ViewCounter. Pure and
 * synchronous; it runs in the counting thread (countingThread.ts), so the visitor set and the
 * per-hit hashing and URL parsing never share the API's event loop or its heap.
 */
import { visitorHash } from './visitorHash.js';
import { externalHost, parseUrl, RecentReferrers, sourceOfPage } from './referrers.js';
import { ViewCounter, type ViewBatch } from './viewCounter.js';
import { notCounted, type ViewHeaders } from './viewRules.js';

/** One load on a blog's host, with what only the main thread can know (its target, the day's salt). */
export interface ViewLoad extends ViewHeaders {
  /** `page`: an HTML page answered (its external referrer is remembered); `beacon`: a counted load. */
  kind: 'page' | 'beacon';
  day: string;
  /** The day's salt, base64: a string, because it crosses to the counting thread with every load. */
  salt: string;
  blogId: string;
  /** null: the blog's listing pages. */
  postId: string | null;
  /** The request's host, normalised (no port). */
  host: string;
  /** The raw URL path of the request. */
  path: string;
  referer: string;
  /** The client address: hashed here, then dropped. */
  address: string;
  /** Milliseconds since the epoch when the load arrived. */
  at: number;
}

export interface CountSizes {
  rows: number;
  referrers: number;
  visitors: number;
}

export class ViewTally {
  private readonly recent = new RecentReferrers();
  private salt: { text: string; bytes: Buffer } = { text: '', bytes: Buffer.alloc(0) };

  constructor(private readonly counter = new ViewCounter()) {}

  add(load: ViewLoad): void {
    if (notCounted(load) !== null) return;
    if (load.kind === 'page') {
      const host = externalHost(load.referer, load.host);
      if (host !== null) this.recent.remember(this.visitor(load), load.path, host, load.at);
      return;
    }
    // The page that loaded the beacon: on the blog's own host, or it is not a reader's page
    // (a saved copy, a page embedding another's beacon): never counted.
    const page = load.referer === '' ? null : parseUrl(load.referer);
    if (load.referer !== '' && (page === null || page.hostname.toLowerCase() !== load.host)) return;
    const hash = this.visitor(load);
    const remembered = page ? this.recent.take(hash, page.pathname, load.at) : null;
    const source = (page ? sourceOfPage(page) : null) ?? remembered;
    this.counter.record(load.day, { blogId: load.blogId, postId: load.postId }, hash, source);
  }

  drain(): ViewBatch {
    return this.counter.drain();
  }

  restore(batch: ViewBatch): void {
    this.counter.restore(batch);
  }

  sizes(): CountSizes {
    return this.counter.sizes();
  }

  /** Nothing counted, no visitor of the day and no page waiting for its beacon: a fresh tally would do the same. */
  holdsNothing(): boolean {
    const { rows, referrers, visitors } = this.counter.sizes();
    return rows + referrers + visitors === 0 && this.recent.size === 0;
  }

  private visitor(load: ViewLoad): string {
    if (this.salt.text !== load.salt) this.salt = { text: load.salt, bytes: Buffer.from(load.salt, 'base64') };
    return visitorHash(this.salt.bytes, load.blogId, load.address, load.userAgent);
  }
}
