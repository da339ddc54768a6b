/**
 * The reader side of analytics on the main thread: what the site server tells about pages it
 * answered and the beacons it received (docs/analytics.md). It only adds what needs the
 * database — the load's target and the day's salt, both cached — and hands the load to the
 * counting (viewTally.ts, in its own thread): a busy blog's beacons cost the API's event loop a
 * few object copies, never the hashing, URL parsing and visitor set.
 */
import type { Clock } from '../lib/clock.js';
import type { DailySalts } from './visitorHash.js';
import type { ViewTarget } from './viewCounter.js';
import type { ViewLoad } from './viewTally.js';
import { notCounted, type ViewHeaders } from './viewRules.js';

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
  target(blogSlug: string, postSlug: string | null): Promise<ViewTarget | null>;
}

/** Where loads go to be counted (the counting thread, or in-process where it cannot start). */
export interface ViewSink {
  add(load: ViewLoad): void;
}

export interface PageViewsDeps {
  targets: Targets;
  salts: DailySalts;
  sink: ViewSink;
  clock: Clock;
}

export class PageViews {
  /** Today's salt as the loads carry it, until the UTC day ends (`until`, epoch ms). */
  private salt: { day: string; text: string; until: number } | null = null;
  /** The last load received: settles once it, and every load before it, is with the counting (or dropped). */
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly deps: PageViewsDeps) {}

  /**
   * Resolves once every load received so far is with the counting (or dropped): what a flush
   * waits for, as the site server answers a load before its lookups are back.
   */
  settled(): Promise<void> {
    return this.last;
  }

  /**
   * An HTML page the site server answered: when it came from another site, its referrer host is
   * kept for a minute for the page's beacon, the only load that is counted.
   */
  async pageServed(request: ReaderRequest): Promise<void> {
    if (request.referer === '' || notCounted(request) !== null) return;
    await this.hand('page', request, null);
  }

  /** A beacon of the page `postSlug` (null: a listing page). */
  async beacon(request: ReaderRequest, postSlug: string | null): Promise<void> {
    // Loads that are no view (HEAD, bots, prefetches) never reach the database here, not even
    // for the day's salt; the rules are cheap on this thread (isbot's verdicts are remembered).
    if (notCounted(request) !== null) return;
    await this.hand('beacon', request, postSlug);
  }

  /**
   * Hands loads to the counting in the order they came, their lookups overlapping: a page's
   * referrer must be there before its beacon, whose lookup may come back first (PostgreSQL).
   */
  private hand(kind: ViewLoad['kind'], request: ReaderRequest, postSlug: string | null): Promise<void> {
    this.last = this.lookUpAndHand(kind, request, postSlug, this.last);
    return this.last;
  }

  /** Never rejects: a load whose target or salt the database could not give is not counted. */
  private async lookUpAndHand(kind: ViewLoad['kind'], request: ReaderRequest, postSlug: string | null, previous: Promise<void>): Promise<void> {
    const at = this.deps.clock.now().getTime();
    let target: ViewTarget | null = null;
    let today: { day: string; text: string } | null = null;
    try {
      target = await this.deps.targets.target(request.blogSlug, postSlug);
      if (target) today = await this.today(at);
    } catch {
      // The database busy or failing: this view is lost, the reader still gets the page.
    }
    await previous;
    if (!target || !today) return;
    // Named field by field: a rest-and-spread copy of the request cost more than everything
    // else a beacon does here.
    this.deps.sink.add({
      method: request.method,
      userAgent: request.userAgent,
      secPurpose: request.secPurpose,
      purpose: request.purpose,
      xMoz: request.xMoz,
      host: request.host,
      path: request.path,
      referer: request.referer,
      address: request.address,
      kind,
      day: today.day,
      salt: today.text,
      blogId: target.blogId,
      postId: target.postId,
      at,
    });
  }

  private async today(at: number): Promise<{ day: string; text: string } | null> {
    if (this.salt && at < this.salt.until && at >= this.salt.until - 86_400_000) return this.salt;
    const today = await this.deps.salts.today();
    if (this.salt?.day !== today.day) {
      const until = Date.parse(`${today.day}T00:00:00.000Z`) + 86_400_000;
      this.salt = { day: today.day, text: today.salt.toString('base64'), until };
    }
    return this.salt;
  }
}
