import { randomUUID } from 'node:crypto';
import type { WebhookEvents } from '../webhooks/webhookEvents.js';
import { isUniqueViolation } from '../db/database.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { Blog, BlogWithDomain } from '../domain/blog.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { ThemeConfig } from '../domain/siteTypes.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../domain/errors.js';
import { checkPrecondition, type Precondition } from './precondition.js';
import type { AuthContext } from './authContext.js';
import { minimumPlan, planIncludes, planLimits, PLANS, themeKeyCapability } from '../domain/plans.js';
import { commitThenPublish } from './commitThenPublish.js';
import type { PublishQueue } from '../domain/publishQueue.js';

export interface CreateBlogInput {
  slug: string;
  name: string;
  description?: string;
  discoverable?: boolean;
}

export interface UpdateBlogInput {
  name?: string;
  description?: string;
  /** Opting in or out of GET /v1/discover: a `discovery` job brings the index in line. */
  discoverable?: boolean;
  /** Merged into the current config; a key set to null is removed. */
  themeConfig?: { [K in keyof ThemeConfig]?: string | null };
}

export type BlogPrecondition = Precondition<BlogWithDomain>;

export interface BlogsDeps {
  sql: SqlClient;
  blogs: BlogsRepo;
  jobs: JobsRepo;
  runner: PublishQueue;
  clock: Clock;
  /** Records blog.updated for webhooks, in the update's transaction. */
  events?: WebhookEvents;
}

/**
 * The rows of a blog delete, inside the caller's write transaction (`deps` bound to it): the
 * blog goes (its posts, keys, webhooks and media rows with it), its slug stays reserved until
 * the durable `site_delete` job returned here has removed its objects and search index
 * (migration 007). Account deletion (services/accounts.ts) runs it for every blog of the account.
 */
export async function retireBlog(
  deps: { blogs: Pick<BlogsRepo, 'delete' | 'retireSlug'>; jobs: Pick<JobsRepo, 'insert'> },
  blog: BlogWithDomain,
  now: string,
): Promise<number> {
  await deps.blogs.delete(blog.id);
  await deps.blogs.retireSlug(blog.slug, blog.id, now);
  return deps.jobs.insert({
    blogId: blog.id,
    blogSlug: blog.slug,
    kind: 'site_delete',
    payload: blog.customDomain ? { hostname: blog.customDomain } : {},
    now,
  });
}

export class BlogsService {
  constructor(private readonly deps: BlogsDeps) {}

  async create(auth: AuthContext, input: CreateBlogInput): Promise<BlogWithDomain> {
    const now = isoNow(this.deps.clock);
    const blog: Blog = {
      id: randomUUID(),
      accountId: auth.account.id,
      slug: input.slug,
      name: input.name,
      description: input.description ?? '',
      themeConfig: {},
      // A new blog has no published post to index: the post jobs add them as they are published.
      discoverable: input.discoverable ?? false,
      createdAt: now,
      updatedAt: now,
    };
    // A handful of small objects, written before the answer as a publish's are; a failure stays
    // on the job and the background tick retries it.
    await commitThenPublish(this.deps, async (tx, record) => {
      const blogs = this.deps.blogs.in(tx);
      // Counted inside the write transaction so two parallel creates cannot both pass.
      const count = await blogs.countByAccount(auth.account.id);
      const { maxBlogs } = planLimits(auth.account.plan);
      if (count >= maxBlogs) {
        const upgrade = PLANS.find((plan) => planLimits(plan).maxBlogs > count);
        throw new ForbiddenError(`the ${auth.account.plan} plan allows ${maxBlogs} blog${maxBlogs === 1 ? '' : 's'}`, {
          ...(upgrade ? { requiredPlan: upgrade } : {}),
        });
      }
      if (await blogs.findBySlug(input.slug)) throw new ConflictError(`blog slug "${input.slug}" is taken`);
      if (await blogs.isSlugRetired(input.slug)) {
        throw new ConflictError(`blog slug "${input.slug}" belonged to a deleted blog whose site is still being removed; try again in a minute`);
      }
      try {
        await blogs.insert(blog);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`blog slug "${input.slug}" is taken`, { cause: err });
        throw err;
      }
      // The answer's `url` works at once: the home page ("No posts yet"), the 404 and search
      // pages, the feeds, robots.txt. It answered 404 until the first post was published.
      record(await this.deps.jobs.in(tx).insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'blog_created' }, now }));
    });
    return { ...blog, customDomain: null, domainActive: false };
  }

  list(auth: AuthContext): Promise<BlogWithDomain[]> {
    return this.deps.blogs.listByAccount(auth.account.id);
  }

  get(auth: AuthContext, blogId: string): Promise<BlogWithDomain> {
    return ownedOrThrow(this.deps.blogs, auth, blogId);
  }

  async update(auth: AuthContext, blogId: string, input: UpdateBlogInput, precondition?: BlogPrecondition): Promise<BlogWithDomain> {
    if (input.themeConfig) this.assertThemeAllowed(auth, input.themeConfig);
    return commitThenPublish(
      this.deps,
      async (tx, record) => {
        const blogs = this.deps.blogs.in(tx);
        const jobs = this.deps.jobs.in(tx);
        const blog = await ownedOrThrow(blogs, auth, blogId);
        checkPrecondition(precondition, blog, `blog "${blog.slug}"`);
        const themeConfig = input.themeConfig ? mergeTheme(blog.themeConfig, input.themeConfig) : blog.themeConfig;
        const next: BlogWithDomain = {
          ...blog,
          name: input.name ?? blog.name,
          description: input.description ?? blog.description,
          themeConfig,
          discoverable: input.discoverable ?? blog.discoverable,
          updatedAt: isoNow(this.deps.clock),
        };
        await blogs.update(next);
        await this.deps.events?.in(tx).blog(next, next.updatedAt);
        // Name, description and theme appear on every page: the whole site is re-rendered.
        const visibleChange =
          next.name !== blog.name || next.description !== blog.description || JSON.stringify(themeConfig) !== JSON.stringify(blog.themeConfig);
        if (visibleChange) {
          record(await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'blog_updated' }, now: next.updatedAt }));
        }
        // Readers stop seeing an opted-out blog at this commit (the query reads the flag); the job
        // indexes an opted-in blog's posts, or drops an opted-out one's entries.
        if (next.discoverable !== blog.discoverable) {
          record(await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'discovery', payload: {}, now: next.updatedAt }));
        }
        return next;
      },
      'background',
    );
  }

  async delete(auth: AuthContext, blogId: string, precondition?: BlogPrecondition): Promise<void> {
    await commitThenPublish(
      this.deps,
      async (tx, record) => {
        const blogs = this.deps.blogs.in(tx);
        const blog = await ownedOrThrow(blogs, auth, blogId);
        checkPrecondition(precondition, blog, `blog "${blog.slug}"`);
        record(await retireBlog({ blogs, jobs: this.deps.jobs.in(tx) }, blog, isoNow(this.deps.clock)));
      },
      'background',
    );
  }

  private assertThemeAllowed(auth: AuthContext, theme: UpdateBlogInput['themeConfig'] & object): void {
    for (const [key, value] of Object.entries(theme)) {
      // Removing a key is always allowed, so a downgraded account can clean up.
      if (value === null || value === undefined) continue;
      const capability = themeKeyCapability(key);
      // The request schema admits only theme keys; a null capability would be our own bug.
      if (capability === null) throw new Error(`theme_config.${key} is not a theme key`);
      if (!planIncludes(auth.account.plan, capability)) {
        const required = minimumPlan(capability);
        throw new ForbiddenError(`theme_config.${key} needs the ${required} plan or higher`, { requiredPlan: required });
      }
    }
  }
}

/** Through `blogs` as given: the plain repository, or one bound to a transaction under way. */
async function ownedOrThrow(blogs: Pick<BlogsRepo, 'findOwned'>, auth: AuthContext, blogId: string): Promise<BlogWithDomain> {
  const blog = await blogs.findOwned(auth.account.id, blogId);
  if (!blog) throw new NotFoundError('blog not found');
  return blog;
}

function mergeTheme(current: ThemeConfig, patch: NonNullable<UpdateBlogInput['themeConfig']>): ThemeConfig {
  const next: Record<string, string> = { ...current } as Record<string, string>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined) delete next[key];
    else next[key] = value;
  }
  return next as ThemeConfig;
}
