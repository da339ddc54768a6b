/**
 * The events webhooks receive, recorded by the services inside the transaction of the change
 * they describe. The body follows Standard Webhooks' recommended shape: `{type, timestamp, data}`.
 */
import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import type { WebhookQueueRepo } from '../db/webhookQueueRepo.js';
import type { SqlTransaction } from '../db/sql/sqlClient.js';
import type { SiteUrls } from '../domain/siteUrls.js';

export const WEBHOOK_EVENTS = [
  'post.published',
  'post.updated',
  'post.unpublished',
  'post.deleted',
  'post.scheduled',
  'blog.updated',
  'domain.activated',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export class WebhookEvents {
  /**
   * `queued` wakes the dispatcher once deliveries were written and their transaction committed
   * (events are recorded through `in(tx)`, inside the change's transaction).
   */
  constructor(
    private readonly repo: Pick<WebhookQueueRepo, 'enqueue' | 'in'>,
    private readonly urls: SiteUrls,
    private readonly queued: () => void = () => undefined,
    private readonly tx: SqlTransaction | null = null,
  ) {}

  /** Events recorded in the transaction of the change they describe: delivered only if it commits. */
  in(tx: SqlTransaction): WebhookEvents {
    return new WebhookEvents(this.repo.in(tx), this.urls, this.queued, tx);
  }

  async post(blog: BlogWithDomain, type: Extract<WebhookEventType, `post.${string}`>, post: Post, now: string): Promise<void> {
    await this.record(blog, type, now, {
      post: {
        id: post.id,
        slug: post.slug,
        title: post.title,
        status: type === 'post.deleted' ? 'deleted' : post.status,
        url: this.urls.post(blog, post.slug),
        tags: post.tags,
        published_at: post.publishedAt,
        scheduled_at: post.scheduledAt,
        updated_at: post.updatedAt,
      },
    });
  }

  async blog(blog: BlogWithDomain, now: string): Promise<void> {
    await this.record(blog, 'blog.updated', now, {});
  }

  async domain(blog: BlogWithDomain, hostname: string, now: string): Promise<void> {
    await this.record(blog, 'domain.activated', now, {
      domain: { hostname, url: `${this.urls.origin({ ...blog, customDomain: hostname, domainActive: true })}/` },
    });
  }

  private async record(blog: BlogWithDomain, type: WebhookEventType, now: string, data: Record<string, unknown>): Promise<void> {
    const payload = JSON.stringify({
      type,
      timestamp: now,
      data: { blog: { id: blog.id, slug: blog.slug, name: blog.name, url: this.urls.blog(blog) }, ...data },
    });
    if ((await this.repo.enqueue(blog.id, type, payload, now)) === 0) return;
    if (this.tx) this.tx.afterCommit(this.queued);
    else this.queued();
  }
}
