import type { WebhookEvents } from '../webhooks/webhookEvents.js';
import { isUniqueViolation } from '../db/database.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { Domain, DomainsRepo, RegistrationKey } from '../db/domainsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../domain/errors.js';
import type { AuthContext } from './authContext.js';
import { challengeName, challengeProblems, challengeValue, newChallengeToken, type DomainResolver } from './domainChallenge.js';
import { minimumPlan, planIncludes } from '../domain/plans.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import { commitThenPublish } from './commitThenPublish.js';

export type { DomainResolver } from './domainChallenge.js';
import type { PublishQueue } from '../domain/publishQueue.js';

export interface DomainView extends Domain {
  cnameTarget: string;
  /** The TXT record that proves control: `name` TXT `value`. */
  challenge: { name: string; value: string };
}

/**
 * How long a registration may stay unverified. A pending registration reserves nothing (any
 * number of blogs may have the same hostname pending, the first to verify gets it), so the
 * period only bounds how long abandoned rows and their DNS checks linger; a week leaves time
 * for slow DNS providers and TTLs without keeping stale registrations around for long.
 */
export const PENDING_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Why a pending registration can no longer verify (last_error). */
const TAKEN = 'the hostname was verified by another blog first; this registration cannot become active while that blog has it';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const keyOf = (d: Domain): RegistrationKey => ({ blogId: d.blogId, hostname: d.hostname, challengeToken: d.challengeToken });

export interface DomainsDeps {
  sql: SqlClient;
  blogs: BlogsRepo;
  domains: DomainsRepo;
  jobs: JobsRepo;
  runner: PublishQueue;
  resolver: DomainResolver;
  clock: Clock;
  logger: Logger;
  /** FOLIO_SERVICE_DOMAIN without its port. */
  serviceHost: string;
  /** Records domain.activated for webhooks, in the activation's transaction. */
  events?: WebhookEvents;
}

export class DomainsService {
  constructor(private readonly deps: DomainsDeps) {}

  cnameTarget(blog: { slug: string }): string {
    return `${blog.slug}.${this.deps.serviceHost}`;
  }

  /**
   * Records a pending registration with a fresh token. Only a hostname that is active for
   * another blog is refused: a pending one reserves nothing, so nobody can hold a hostname
   * hostage by registering it first.
   */
  async register(auth: AuthContext, blogId: string, hostname: string): Promise<DomainView> {
    const blog = await this.ownedBlog(auth, blogId);
    this.assertHostname(hostname);
    const now = this.deps.clock.now();
    const domain = await this.deps.sql.transaction(async (tx) => {
      const domains = this.deps.domains.in(tx);
      const existing = await domains.findByBlog(blog.id);
      if (existing && !this.isExpired(existing, now)) throw new ConflictError('this blog already has a custom domain; delete it first');
      // A lapsed registration of this blog is dropped, as the background check would.
      if (existing) await domains.delete(blog.id);
      if (await domains.findActiveByHostname(hostname)) throw new ConflictError(`hostname "${hostname}" is already in use by another blog`);
      const row = {
        blogId: blog.id,
        hostname,
        challengeToken: newChallengeToken(),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + PENDING_TTL_MS).toISOString(),
      };
      try {
        await domains.insert(row);
      } catch (err) {
        // The transaction holds the write lock, so only the primary key (one domain per blog) can clash here.
        if (isUniqueViolation(err)) throw new ConflictError('this blog already has a custom domain; delete it first', { cause: err });
        throw err;
      }
      return (await domains.findByBlog(blog.id))!;
    });
    return this.view(blog, domain);
  }

  /**
   * The blog's domain, checked against DNS first while it is still pending. A registration
   * past its expiry is removed and answers 404, as after the background check removed it.
   */
  async get(auth: AuthContext, blogId: string): Promise<DomainView> {
    const blog = await this.ownedBlog(auth, blogId);
    const domain = await this.deps.domains.findByBlog(blog.id);
    if (!domain) throw new NotFoundError('this blog has no custom domain');
    if (domain.status === 'pending_verification') {
      await this.check(blog, domain);
      const current = await this.deps.domains.findByBlog(blog.id);
      if (!current) {
        throw new NotFoundError(
          this.isExpired(domain, this.deps.clock.now())
            ? `the registration of "${domain.hostname}" expired at ${domain.expiresAt} without being verified; register it again (with a new token)`
            : 'this blog has no custom domain',
        );
      }
      return this.view(blog, current);
    }
    return this.view(blog, domain);
  }

  async remove(auth: AuthContext, blogId: string): Promise<void> {
    const blog = await this.ownedBlog(auth, blogId);
    await commitThenPublish(
      this.deps,
      async (tx, record) => {
        const domains = this.deps.domains.in(tx);
        const domain = await domains.findByBlog(blog.id);
        if (!domain) throw new NotFoundError('this blog has no custom domain');
        await domains.delete(blog.id);
        if (domain.status === 'active') {
          // Canonical URLs go back to the subdomain and the routing entry must disappear.
          record(
            await this.deps.jobs.in(tx).insert({
              blogId: blog.id,
              blogSlug: blog.slug,
              kind: 'site',
              payload: { reason: 'domain_removed', hostname: domain.hostname },
              now: isoNow(this.deps.clock),
            }),
          );
        }
      },
      'background',
    );
  }

  /**
   * The background check: removes lapsed registrations, then checks the pending ones, least
   * recently checked first. Returns how many became active.
   */
  async checkPending(limit = 50): Promise<number> {
    const expired = await this.deps.domains.deleteExpired(isoNow(this.deps.clock));
    if (expired > 0) this.deps.logger.info({ count: expired }, 'removed expired custom domain registrations');
    let activated = 0;
    for (const domain of await this.deps.domains.listPendingForChecks(limit)) {
      const blog = await this.deps.blogs.findById(domain.blogId);
      if (blog && (await this.check(blog, domain))) activated += 1;
    }
    return activated;
  }

  /**
   * Looks the challenge up in DNS; when both records are right and no other blog has the
   * hostname, the registration becomes active and every other pending registration of the
   * hostname loses. Returns whether it became active.
   */
  private async check(blog: BlogWithDomain, domain: Domain): Promise<boolean> {
    // No lookups when they cannot change the outcome: the registration has lapsed (it is
    // removed below), or another blog has the hostname.
    const lapsed = this.isExpired(domain, this.deps.clock.now());
    const taken = !lapsed && (await this.deps.domains.findActiveByHostname(domain.hostname)) !== null;
    const dnsProblems = lapsed ? ['expired'] : taken ? [TAKEN] : await challengeProblems(this.deps.resolver, domain, this.cnameTarget(blog));
    const outcome = await commitThenPublish(
      this.deps,
      async (tx, record): Promise<'active' | 'pending' | 'gone'> => {
        const domains = this.deps.domains.in(tx);
        const now = this.deps.clock.now();
        const current = await domains.findByBlog(blog.id);
        // Removed, replaced or verified while DNS was answering: nothing to record.
        if (!current || current.challengeToken !== domain.challengeToken || current.status !== 'pending_verification') return 'gone';
        // Past its expiry a registration is never activated, whatever DNS says now.
        if (this.isExpired(current, now)) {
          await domains.deleteRegistration(keyOf(current));
          return 'gone';
        }
        const checkedAt = now.toISOString();
        let problems = dnsProblems;
        // Re-checked under the write lock: another blog may have verified during the lookups.
        if (problems.length === 0 && (await domains.findActiveByHostname(current.hostname))) problems = [TAKEN];
        if (problems.length === 0) {
          try {
            await tx.attempt(() => domains.activate({ ...keyOf(current), checkedAt }));
          } catch (err) {
            // The partial unique index (one active row per hostname) is the last guard.
            if (!isUniqueViolation(err)) throw err;
            problems = [TAKEN];
          }
        }
        if (problems.length > 0) {
          await domains.recordCheck({ ...keyOf(current), checkedAt, lastError: problems.join('; ') });
          return 'pending';
        }
        await domains.markLost(current.hostname, blog.id, TAKEN);
        record(
          await this.deps.jobs.in(tx).insert({
            blogId: blog.id,
            blogSlug: blog.slug,
            kind: 'site',
            payload: { reason: 'domain_active', hostname: current.hostname },
            now: checkedAt,
          }),
        );
        await this.deps.events?.in(tx).domain(blog, current.hostname, checkedAt);
        return 'active';
      },
      'background',
    );
    if (outcome === 'active') this.deps.logger.info({ blog: blog.slug, hostname: domain.hostname }, 'custom domain verified');
    return outcome === 'active';
  }

  private isExpired(domain: Domain, now: Date): boolean {
    return domain.status === 'pending_verification' && domain.expiresAt !== null && domain.expiresAt <= now.toISOString();
  }

  private view(blog: { slug: string }, domain: Domain): DomainView {
    return {
      ...domain,
      cnameTarget: this.cnameTarget(blog),
      challenge: { name: challengeName(domain.hostname), value: challengeValue(domain.challengeToken) },
    };
  }

  private async ownedBlog(auth: AuthContext, blogId: string): Promise<BlogWithDomain> {
    const blog = await this.deps.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    if (!planIncludes(auth.account.plan, 'domains')) {
      throw new ForbiddenError(`custom domains need the ${minimumPlan('domains')} plan or higher`, { requiredPlan: minimumPlan('domains') });
    }
    return blog;
  }

  private assertHostname(hostname: string): void {
    const fail = (message: string): never => {
      throw new BadRequestError(`hostname ${message}`, { details: [{ field: 'hostname', message }] });
    };
    if (hostname.length > 253) fail('must be at most 253 characters');
    if (hostname !== hostname.toLowerCase()) fail('must be lower case');
    const labels = hostname.split('.');
    if (labels.length < 2) fail('must have at least two labels, like blog.example.com');
    if (!labels.every((label) => LABEL.test(label))) fail('must be a valid DNS name (letters, digits and hyphens, dot-separated)');
    if (/^\d+$/.test(labels[labels.length - 1]!)) fail('must not be an IP address');
    if (hostname === this.deps.serviceHost || hostname.endsWith(`.${this.deps.serviceHost}`)) fail(`must not be under ${this.deps.serviceHost}`);
  }
}
