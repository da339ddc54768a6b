/**
 * The events webhooks receive, recorded by the services inside the transaction of the change
 * they describe. The body follows Standard Webhooks' recommended shape: `{type, timestamp, data}`.
 */
import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import type { WebhookQueueRepo } from '../db/webhookQueueRepo.js';
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
   * `queued` is called when deliveries were written, from inside the transaction: the
   * dispatcher is woken on the next turn of the event loop, once the transaction (synchronous)
   * has committed or rolled back.
   */
  constructor(
    private readonly repo: Pick<WebhookQueueRepo, 'enqueue'>,
    private readonly urls: SiteUrls,
    private readonly queued: () => void = () => undefined,
  ) {}

  post(blog: BlogWithDomain, type: Extract<WebhookEventType, `post.${string}`>, post: Post, now: string): void {
    this.record(blog, type, now, {
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

  blog(blog: BlogWithDomain, now: string): void {
    this.record(blog, 'blog.updated', now, {});
  }

  domain(blog: BlogWithDomain, hostname: string, now: string): void {
    this.record(blog, 'domain.activated', now, { domain: { hostname, url: `${this.urls.origin({ ...blog, customDomain: hostname, domainActive: true })}/` } });
  }

  private record(blog: BlogWithDomain, type: WebhookEventType, now: string, data: Record<string, unknown>): void {
    const payload = JSON.stringify({
      type,
      timestamp: now,
      data: { blog: { id: blog.id, slug: blog.slug, name: blog.name, url: this.urls.blog(blog) }, ...data },
    });
    if (this.repo.enqueue(blog.id, type, payload, now) > 0) setImmediate(this.queued);
  }
}
