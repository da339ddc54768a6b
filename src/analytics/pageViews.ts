/**
 * The reader side of analytics: what the site server tells about pages it answered and the
 * beacons it received (docs/analytics.md). Never stores an address: it is hashed with the day's
 * salt and dropped; the hash stays in memory for the day.
 */
import type { Clock } from '../lib/clock.js';
import { notCounted, type ViewHeaders } from './viewRules.js';
import { externalHost, parseUrl, RecentReferrers, sourceOfPage } from './referrers.js';
import { visitorHash, type DailySalts } from './visitorHash.js';
import type { ViewCounter, ViewTarget } from './viewCounter.js';

/** One request on a blog's host, as the site server saw it. */
export interface ReaderRequest extends ViewHeaders {
  /** The slug of the blog the host serves. */
  blogSlug: string;
  /** The request's host, normalised (no port). */
  host: string;
  /** The raw URL path of the request. */
  path: string;
  referer: string;
  /** The client address (the socket's, or X-Forwarded-For's behind a trusted proxy). */
  address: string;
}

export interface Targets {
  /** The blog and its published post `postSlug` (null: the blog itself), or null. */
  target(blogSlug: string, postSlug: string | null): ViewTarget | null;
}

export interface PageViewsDeps {
  targets: Targets;
  salts: DailySalts;
  counter: ViewCounter;
  clock: Clock;
}

export class PageViews {
  private readonly recent = new RecentReferrers();

  constructor(private readonly deps: PageViewsDeps) {}

  /**
   * An HTML page the site server answered: when it came from another site, its referrer host is
   * kept for a minute for the page's beacon, the only load that is counted.
   */
  pageServed(request: ReaderRequest): void {
    if (request.referer === '' || notCounted(request) !== null) return;
    const host = externalHost(request.referer, request.host);
    if (host === null) return;
    const target = this.deps.targets.target(request.blogSlug, null);
    if (!target) return;
    const visitor = this.visitor(target, request);
    if (visitor) this.recent.remember(visitor.hash, request.path, host, this.deps.clock.now().getTime());
  }

  /** A beacon of the page `postSlug` (null: a listing page); true when it was counted. */
  beacon(request: ReaderRequest, postSlug: string | null): boolean {
    if (notCounted(request) !== null) return false;
    // The page that loaded the beacon: on the blog's own host, or it is not a reader's page
    // (a saved copy, a page embedding another's beacon): never counted.
    const page = request.referer === '' ? null : parseUrl(request.referer);
    if (request.referer !== '' && (page === null || page.hostname.toLowerCase() !== request.host)) return false;
    const target = this.deps.targets.target(request.blogSlug, postSlug);
    if (!target) return false;
    const visitor = this.visitor(target, request);
    if (!visitor) return false;
    const { hash, day } = visitor;
    const remembered = page ? this.recent.take(hash, page.pathname, this.deps.clock.now().getTime()) : null;
    const source = (page ? sourceOfPage(page) : null) ?? remembered;
    this.deps.counter.record(day, target, hash, source);
    return true;
  }

  private visitor(target: ViewTarget, request: ReaderRequest): { hash: string; day: string } | null {
    let today: { day: string; salt: Buffer };
    try {
      today = this.deps.salts.today();
    } catch {
      // The day's salt could not be read or made (the database busy or failing): this view is
      // lost, the reader still gets the page and its image.
      return null;
    }
    return { day: today.day, hash: visitorHash(today.salt, target.blogId, request.address, request.userAgent) };
  }
}
