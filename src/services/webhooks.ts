import { randomBytes, randomUUID } from 'node:crypto';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { AttemptView, Webhook, WebhooksRepo } from '../db/webhooksRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { BadRequestError, ConflictError, NotFoundError } from '../domain/errors.js';
import { BlockedAddressError, resolveAllowed, type Lookup } from '../webhooks/addressGuard.js';
import type { AuthContext } from './authContext.js';

/** Webhooks per blog: enough for a few integrations, few enough that one change stays cheap. */
export const MAX_WEBHOOKS_PER_BLOG = 10;

/** Webhook registrations of a blog (delivery: src/webhooks/dispatcher.ts). */
export class WebhooksService {
  constructor(
    private readonly deps: {
      sql: SqlClient;
      blogs: BlogsRepo;
      webhooks: WebhooksRepo;
      clock: Clock;
      lookup: Lookup;
      allowPrivate: boolean;
      /** Starts due deliveries now rather than at the scheduler's next tick. */
      wake?: () => void;
    },
  ) {}

  async create(auth: AuthContext, blogId: string, input: { url: string; events: string[] }): Promise<Webhook> {
    const blog = await this.blog(auth, blogId);
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw new BadRequestError('url must be an absolute http(s) URL', { details: [{ field: 'url', message: 'must be an absolute http(s) URL' }] });
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password) {
      throw new BadRequestError('url must be an http(s) URL without credentials', {
        details: [{ field: 'url', message: 'must be an http(s) URL without credentials' }],
      });
    }
    try {
      await resolveAllowed(url, { lookup: this.deps.lookup, allowPrivate: this.deps.allowPrivate });
    } catch (err) {
      if (err instanceof BlockedAddressError) throw new BadRequestError(`url refused: ${err.message}`, { details: [{ field: 'url', message: err.message }] });
      throw err;
    }
    return this.deps.sql.transaction(async (tx) => {
      const webhooks = this.deps.webhooks.in(tx);
      if ((await webhooks.listByBlog(blog.id)).length >= MAX_WEBHOOKS_PER_BLOG)
        throw new ConflictError(`a blog can have at most ${MAX_WEBHOOKS_PER_BLOG} webhooks; delete one first`);
      const webhook: Webhook = {
        id: randomUUID(),
        blogId: blog.id,
        url: url.href,
        events: [...new Set(input.events)],
        secret: `whsec_${randomBytes(24).toString('base64')}`,
        createdAt: isoNow(this.deps.clock),
      };
      await webhooks.insert(webhook);
      return webhook;
    });
  }

  async list(auth: AuthContext, blogId: string): Promise<Webhook[]> {
    return this.deps.webhooks.listByBlog((await this.blog(auth, blogId)).id);
  }

  async delete(auth: AuthContext, blogId: string, webhookId: string): Promise<void> {
    await this.deps.webhooks.delete((await this.webhook(auth, blogId, webhookId)).id);
  }

  /** The most recent attempts, newest first. */
  async attempts(auth: AuthContext, blogId: string, webhookId: string): Promise<AttemptView[]> {
    return this.deps.webhooks.attempts((await this.webhook(auth, blogId, webhookId)).id, 100);
  }

  /**
   * Sends a delivery again (a receiver fixed after it failed, or one that lost what it took):
   * due at once, with the same body and `webhook-id`. A failed delivery gets one attempt more,
   * retried with back-off only within 24 hours of its event.
   */
  async redeliver(auth: AuthContext, blogId: string, webhookId: string, deliveryId: string): Promise<{ deliveryId: string }> {
    const webhook = await this.webhook(auth, blogId, webhookId);
    await this.deps.sql.transaction(async (tx) => {
      const webhooks = this.deps.webhooks.in(tx);
      const delivery = await webhooks.findDelivery(webhook.id, deliveryId);
      if (!delivery) throw new NotFoundError('delivery not found');
      await webhooks.redeliver(delivery.id, isoNow(this.deps.clock));
    });
    this.deps.wake?.();
    return { deliveryId };
  }

  private async blog(auth: AuthContext, blogId: string): Promise<BlogWithDomain> {
    const blog = await this.deps.blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    return blog;
  }

  private async webhook(auth: AuthContext, blogId: string, webhookId: string): Promise<Webhook> {
    const blog = await this.blog(auth, blogId);
    const webhook = await this.deps.webhooks.find(webhookId);
    if (!webhook || webhook.blogId !== blog.id) throw new NotFoundError('webhook not found');
    return webhook;
  }
}
