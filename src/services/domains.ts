import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/database.js';
import type { BlogsRepo, BlogWithDomain } from '../db/blogsRepo.js';
import type { Domain, DomainsRepo } from '../db/domainsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { JobRunner } from '../publish/jobRunner.js';
import type { Logger } from '../logger.js';
import { isoNow, type Clock } from '../clock.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { AuthContext } from './authContext.js';
import { minimumPlan, planIncludes } from './plans.js';

/** Answers which hostname a name's CNAME points at (null when there is none). */
export interface CnameResolver {
  resolveCname(hostname: string): Promise<string[]>;
}

export interface DomainView extends Domain {
  cnameTarget: string;
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export class DomainsService {
  constructor(
    private readonly db: Db,
    private readonly blogs: BlogsRepo,
    private readonly domains: DomainsRepo,
    private readonly jobs: JobsRepo,
    private readonly runner: JobRunner,
    private readonly resolver: CnameResolver,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** FOLIO_SERVICE_DOMAIN without its port. */
    private readonly serviceHost: string,
  ) {}

  cnameTarget(blog: { slug: string }): string {
    return `${blog.slug}.${this.serviceHost}`;
  }

  register(auth: AuthContext, blogId: string, hostname: string): DomainView {
    const blog = this.ownedBlog(auth, blogId);
    this.assertHostname(hostname);
    const domain = this.db
      .transaction(() => {
        if (this.domains.findByBlog(blog.id)) throw new ConflictError('this blog already has a custom domain; delete it first');
        if (this.domains.findByHostname(hostname)) throw new ConflictError(`hostname "${hostname}" is already registered`);
        const row = { blogId: blog.id, hostname, status: 'pending_verification' as const, createdAt: isoNow(this.clock) };
        try {
          this.domains.insert(row);
        } catch (err) {
          if (isUniqueViolation(err)) throw new ConflictError(`hostname "${hostname}" is already registered`, { cause: err });
          throw err;
        }
        return this.domains.findByBlog(blog.id)!;
      })
      .immediate();
    return { ...domain, cnameTarget: this.cnameTarget(blog) };
  }

  /** The blog's domain, checked against DNS first while it is still pending. */
  async get(auth: AuthContext, blogId: string): Promise<DomainView> {
    const blog = this.ownedBlog(auth, blogId);
    const domain = this.domains.findByBlog(blog.id);
    if (!domain) throw new NotFoundError('this blog has no custom domain');
    if (domain.status === 'pending_verification') await this.check(blog, domain);
    const current = this.domains.findByBlog(blog.id) ?? domain;
    return { ...current, cnameTarget: this.cnameTarget(blog) };
  }

  async remove(auth: AuthContext, blogId: string): Promise<void> {
    const blog = this.ownedBlog(auth, blogId);
    const jobIds: number[] = [];
    this.db
      .transaction(() => {
        const domain = this.domains.findByBlog(blog.id);
        if (!domain) throw new NotFoundError('this blog has no custom domain');
        this.domains.delete(blog.id);
        if (domain.status === 'active') {
          // Canonical URLs go back to the subdomain and the routing entry must disappear.
          jobIds.push(
            this.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'domain_removed', hostname: domain.hostname }, now: isoNow(this.clock) }),
          );
        }
      })
      .immediate();
    this.runner.runInBackground(jobIds);
  }

  /** The background check: every pending domain, least recently checked first. */
  async checkPending(limit = 50): Promise<number> {
    let activated = 0;
    for (const domain of this.domains.listForChecks().filter((d) => d.status === 'pending_verification').slice(0, limit)) {
      const blog = this.blogs.findById(domain.blogId);
      if (blog && (await this.check(blog, domain))) activated += 1;
    }
    return activated;
  }

  /** Resolves the CNAME; when it points at the blog, the domain becomes active. */
  private async check(blog: BlogWithDomain, domain: Domain): Promise<boolean> {
    const target = this.cnameTarget(blog);
    let pointsHere = false;
    let lastError: string | null = null;
    try {
      const records = await this.resolver.resolveCname(domain.hostname);
      pointsHere = records.some((record) => record.toLowerCase().replace(/\.$/, '') === target);
      if (!pointsHere) lastError = records.length ? `CNAME points at ${records.join(', ')}, expected ${target}` : 'no CNAME record';
    } catch (err) {
      lastError = `DNS lookup failed: ${err instanceof Error && 'code' in err ? String(err.code) : String(err)}`;
    }
    const jobIds: number[] = [];
    this.db
      .transaction(() => {
        const current = this.domains.findByBlog(blog.id);
        // Removed or replaced while DNS was answering: nothing to record.
        if (!current || current.hostname !== domain.hostname || current.status === 'active') return;
        const now = isoNow(this.clock);
        this.domains.recordCheck({ blogId: blog.id, hostname: domain.hostname, status: pointsHere ? 'active' : 'pending_verification', checkedAt: now, lastError });
        if (pointsHere) {
          jobIds.push(this.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'domain_active', hostname: domain.hostname }, now }));
        }
      })
      .immediate();
    if (pointsHere) this.logger.info({ blog: blog.slug, hostname: domain.hostname }, 'custom domain verified');
    this.runner.runInBackground(jobIds);
    return pointsHere;
  }

  private ownedBlog(auth: AuthContext, blogId: string): BlogWithDomain {
    const blog = this.blogs.findOwned(auth.account.id, blogId);
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
    if (hostname === this.serviceHost || hostname.endsWith(`.${this.serviceHost}`)) fail(`must not be under ${this.serviceHost}`);
  }
}
