/**
 * Live data the route property suite names in its requests (keys, blogs, a post, key ids), kept
 * alive across runs: a run may delete a blog, revoke a key, rename or publish the post, and the
 * next run must still find what it names. Everything is (re)created through the API.
 */
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { TestApp } from './testApp.js';

export type Owner = 'owner' | 'other' | 'free';
export type PostState = 'draft' | 'published' | 'scheduled';

/** Whose each fixture is: a key of one account naming another's blog or key must fail. */
export const OWNER_OF: Readonly<Record<string, Owner>> = {
  accountKey: 'owner',
  blogKey: 'owner',
  readOnlyKey: 'owner',
  blogId: 'owner',
  keyId: 'owner',
  otherAccountKey: 'other',
  otherBlogId: 'other',
  otherKeyId: 'other',
  freePlanKey: 'free',
  freeBlogId: 'free',
  webhookId: 'owner',
  otherWebhookId: 'other',
  deliveryId: 'owner',
  otherDeliveryId: 'other',
  revisionId: 'owner',
  otherRevisionId: 'other',
  sessionId: 'owner',
  otherSessionId: 'other',
};

/** Fixtures a path parameter may name, by parameter name; the owner's first. A new parameter needs an entry. */
export const PARAM_FIXTURES: Readonly<Record<string, readonly string[]>> = {
  id: ['blogId', 'otherBlogId', 'freeBlogId'],
  slug: ['postSlug'],
  keyId: ['keyId', 'otherKeyId'],
  webhookId: ['webhookId', 'otherWebhookId'],
  // A delivery of the fixture webhook, and one of the other account's.
  deliveryId: ['deliveryId', 'otherDeliveryId'],
  // The fixture post's newest revision, and that of the other account's post of the same slug.
  revisionId: ['revisionId', 'otherRevisionId'],
  // A dashboard session of each account (DELETE /v1/account/sessions/:sessionId).
  sessionId: ['sessionId', 'otherSessionId'],
  // GET /v1/docs/:version/:file: the served Swagger UI version and its files.
  version: ['docsVersion'],
  file: ['docsScript', 'docsStyles'],
  // GET /preview/:token: a token of the minted form that no link has (the page's success path is
  // test/integration/previews.test.ts).
  token: ['previewToken'],
};

/** Keys in every form the suite sends: the owner's (account, blog-bound, read-only), another account's, a Free account's. */
export const LIVE_KEYS = ['accountKey', 'blogKey', 'readOnlyKey', 'otherAccountKey', 'freePlanKey'] as const;

const POST_SLUG = 'fixture-post';
const SWAGGER_UI_VERSION = (createRequire(import.meta.url)('swagger-ui-dist/package.json') as { version: string }).version;

export class RouteFixtures {
  /** Fixture name → its current value (ids and keys change when re-created). */
  readonly values: Record<string, string>;
  private readonly other: { accountId: string; key: string };
  private readonly free: { accountId: string; key: string };
  private counter = 0;

  /** The fixtures of `t`, with the two other accounts they need. */
  static async create(t: TestApp): Promise<RouteFixtures> {
    return new RouteFixtures(t, await t.createAccount('enterprise'), await t.createAccount('free'));
  }

  private constructor(
    private readonly t: TestApp,
    other: { accountId: string; key: string },
    free: { accountId: string; key: string },
  ) {
    this.other = other;
    this.free = free;
    this.values = {
      accountKey: t.key,
      otherAccountKey: this.other.key,
      freePlanKey: this.free.key,
      postSlug: POST_SLUG,
      docsVersion: SWAGGER_UI_VERSION,
      docsScript: 'start.js',
      docsStyles: 'swagger-ui.css',
      previewToken: 'Hk3mVb0qL5xZ8rT2wY7uN1cE4sA9dF6gJ0pQ3iO5e_K',
    };
  }

  /** Brings back whatever earlier runs deleted, revoked or renamed, then sets the post and domain state. */
  async ensure(state?: { postState: PostState; hasDomain: boolean }): Promise<void> {
    const { t, values } = this;
    const { blogs, posts, keys } = t.folio.repos;
    if (!values.blogId || !(await blogs.findOwned(t.accountId, values.blogId))) values.blogId = await this.blogOf(t.accountId, t.key);
    if (!(await posts.findBySlug(values.blogId, POST_SLUG))) {
      await this.created(t.key, '/v1/posts', { title: 'Fixture', content: 'Some *Markdown*.', slug: POST_SLUG }, values.blogId);
    }
    if (!(await this.isLive(values.blogKey))) {
      const key = await this.created(t.key, `/v1/blogs/${values.blogId}/api-keys`, { name: 'bound' });
      [values.blogKey, values.keyId] = [key.key!, key.id!];
    }
    if (!(await this.isLive(values.readOnlyKey))) {
      values.readOnlyKey = (await this.created(t.key, `/v1/blogs/${values.blogId}/api-keys`, { name: 'read', scopes: ['posts:read', 'blogs:read'] })).key!;
    }
    if (!values.revokedKey) {
      const key = await this.created(t.key, `/v1/blogs/${values.blogId}/api-keys`, { name: 'revoked' });
      expect((await t.request('DELETE', `/v1/blogs/${values.blogId}/api-keys/${key.id}`)).status).toBe(200);
      values.revokedKey = key.key!;
    }
    if (!values.otherBlogId || !(await blogs.findOwned(this.other.accountId, values.otherBlogId)))
      values.otherBlogId = await this.blogOf(this.other.accountId, this.other.key);
    if (!values.otherKeyId || !(await keys.listActiveForBlog(values.otherBlogId)).some((k) => k.id === values.otherKeyId)) {
      values.otherKeyId = (await this.created(this.other.key, `/v1/blogs/${values.otherBlogId}/api-keys`, { name: 'other' })).id!;
    }
    if (!(await posts.findBySlug(values.otherBlogId, POST_SLUG))) {
      await this.created(this.other.key, '/v1/posts', { title: 'Not yours', content: 'Another account wrote this.', slug: POST_SLUG }, values.otherBlogId);
    }
    values.revisionId = await this.newestRevision(values.blogId);
    values.otherRevisionId = await this.newestRevision(values.otherBlogId);
    values.webhookId = await this.webhookOf(values.blogId, values.webhookId);
    values.sessionId = await this.sessionOf(t.accountId, values.sessionId);
    values.otherSessionId = await this.sessionOf(this.other.accountId, values.otherSessionId);
    values.otherWebhookId = await this.webhookOf(values.otherBlogId, values.otherWebhookId);
    values.deliveryId = await this.deliveryOf(values.webhookId, values.deliveryId);
    values.otherDeliveryId = await this.deliveryOf(values.otherWebhookId, values.otherDeliveryId);
    if (!values.freeBlogId || !(await blogs.findOwned(this.free.accountId, values.freeBlogId)))
      values.freeBlogId = await this.blogOf(this.free.accountId, this.free.key);
    for (const name of ['accountKey', 'otherAccountKey', 'freePlanKey', 'blogKey', 'readOnlyKey'])
      expect(await this.isLive(values[name]), `${name} must stay live`).toBe(true);
    if (state) {
      await this.putPostIn(state.postState);
      await this.putDomain(state.hasDomain);
    }
    // Whole-site jobs of these changes run after their answers; their writes are not the next request's.
    await this.settle();
  }

  /** Waits for the background work requests start: publish jobs and what they write, webhook sends. */
  async settle(): Promise<void> {
    await this.t.folio.idle();
  }

  private async created(key: string, path: string, body: Record<string, unknown>, blogId?: string): Promise<Record<string, string>> {
    const res = await this.t.request('POST', path, { key, body, ...(blogId ? { blogId } : {}) });
    if (res.status !== 201) throw new Error(`fixture ${path}: ${res.status} ${res.text}`);
    // Authenticating marks a new key used now; the test clock stands still, so later uses write nothing.
    if (typeof res.body.key === 'string') await this.isLive(res.body.key);
    return res.body;
  }

  /** Authenticating marks the key used now (see `created`). */
  private async isLive(key: string | undefined): Promise<boolean> {
    if (!key) return false;
    try {
      await this.t.folio.apiKeys.authenticate(`Bearer ${key}`);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A webhook of the blog. Written through the repository: the API refuses loopback URLs unless
   * FOLIO_WEBHOOKS_ALLOW_PRIVATE, and this one must never be reached (deliveries to it are
   * blocked at the address check, without any network).
   */
  private async webhookOf(blogId: string, current: string | undefined): Promise<string> {
    const { webhooks } = this.t.folio.repos;
    if (current && (await webhooks.find(current))?.blogId === blogId) return current;
    const id = `fixture-hook-${process.pid}-${++this.counter}`;
    await webhooks.insert({
      id,
      blogId,
      url: 'http://127.0.0.1:9/hook',
      events: ['post.published'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      createdAt: new Date(0).toISOString(),
    });
    return id;
  }

  /** A live dashboard session of the account (a run may have revoked it), made by the service a sign-in uses. */
  private async sessionOf(accountId: string, current: string | undefined): Promise<string> {
    const live = await this.t.folio.repos.sessions.listLive(accountId, this.t.clock.now().toISOString());
    if (current && live.some((session) => session.id === current)) return current;
    return (await this.t.folio.sessions.create(accountId, 'route fixtures')).session.id;
  }

  /**
   * A delivery of the webhook, written through the database as the fixture webhook is: failed,
   * so nothing sends it unless a run redelivers it (and then the address check blocks it).
   */
  private async deliveryOf(webhookId: string, current: string | undefined): Promise<string> {
    const { webhooks } = this.t.folio.repos;
    if (current && (await webhooks.findDelivery(webhookId, current))) return current;
    const id = `msg_fixture${process.pid}x${++this.counter}`;
    await this.t.folio.sql.run(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at)
       VALUES (?, ?, 'post.published', '{}', 'failed', 1, ?, ?)`,
      [id, webhookId, new Date(0).toISOString(), new Date(0).toISOString()],
    );
    return id;
  }

  /** The id of the newest revision of the blog's fixture post (every post made through the API has one). */
  private async newestRevision(blogId: string): Promise<string> {
    const { posts, revisions } = this.t.folio.repos;
    const post = await posts.findBySlug(blogId, POST_SLUG);
    const newest = post ? (await revisions.list(post.id, 1, 0)).revisions[0] : undefined;
    if (!newest) throw new Error(`fixture post of blog ${blogId} has no revision`);
    return newest.id;
  }

  /** One of the account's blogs (a run may have made one; the Free plan allows only one). */
  private async blogOf(accountId: string, key: string): Promise<string> {
    const existing = (await this.t.folio.repos.blogs.listByAccount(accountId))[0];
    if (existing) return existing.id;
    return (await this.created(key, '/v1/blogs', { slug: `fixture-${process.pid}-${++this.counter}`, name: 'Fixture' })).id!;
  }

  /** Moves the fixture post to the state a run asks for. */
  private async putPostIn(state: PostState): Promise<void> {
    const post = await this.t.folio.repos.posts.findBySlug(this.values.blogId!, POST_SLUG);
    if (!post || post.status === state) return;
    // A published post is scheduled by way of a draft (decisions.md transitions).
    if (state === 'scheduled' && post.status === 'published') await this.putPostIn('draft');
    const action = state === 'draft' ? 'unpublish' : state === 'published' ? 'publish' : 'schedule';
    const res = await this.t.request('POST', `/v1/posts/${POST_SLUG}/${action}`, {
      blogId: this.values.blogId!,
      ...(state === 'scheduled' ? { body: { scheduled_at: '2030-01-01T00:00:00Z' } } : {}),
    });
    if (res.status !== 200) throw new Error(`fixture post to ${state}: ${res.status} ${res.text}`);
  }

  /** Registers a (pending) domain on the fixture blog, or removes it. */
  private async putDomain(wanted: boolean): Promise<void> {
    const has = (await this.t.folio.repos.domains.findByBlog(this.values.blogId!)) !== null;
    if (has === wanted) return;
    const path = `/v1/blogs/${this.values.blogId}/domain`;
    const res = wanted
      ? await this.t.request('POST', path, { body: { hostname: `fixture-${++this.counter}.example.com` } })
      : await this.t.request('DELETE', path);
    if (res.status !== (wanted ? 201 : 200)) throw new Error(`fixture domain: ${res.status} ${res.text}`);
  }
}
