/**
 * The small typed client of Folio's HTTP API that the command line (`folio push`, `folio pull`)
 * and the MCP server use: they talk to a Folio, local or remote, exactly as any other
 * client does, never to its services. Requests and answers are typed by the types generated
 * from the server's own OpenAPI document (`generated/folioApi.ts`, `npm run generate:client`;
 * a test fails when it drifts), sent by `openapi-fetch`.
 *
 * Every failure becomes a FolioApiError carrying the API's `error` code and `message`
 * (the OpenAPI document's ApiError), or `network_error` when no answer came.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/folioApi.js';

export type PostInput = NonNullable<paths['/v1/posts']['post']['requestBody']>['content']['application/json'];
export type PostUpdate = NonNullable<paths['/v1/posts/{slug}']['put']['requestBody']>['content']['application/json'];
export type BlogInput = NonNullable<paths['/v1/blogs']['post']['requestBody']>['content']['application/json'];
export type BlogUpdate = NonNullable<paths['/v1/blogs/{id}']['put']['requestBody']>['content']['application/json'];
export type KeyInput = NonNullable<paths['/v1/account/api-keys']['post']['requestBody']>['content']['application/json'];
export type WebhookInput = NonNullable<paths['/v1/blogs/{id}/webhooks']['post']['requestBody']>['content']['application/json'];

export interface FolioClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:3000` (FOLIO_API_URL). */
  baseUrl: string;
  /** A Folio API key (FOLIO_API_KEY). */
  apiKey: string;
  /** Used for the blog of post, search and media calls when the key is not bound to one. */
  blogId?: string;
  /** More headers on every request (the /mcp endpoint's grant, mcpGrants.ts). */
  headers?: Record<string, string>;
  /** For tests and embedding: the fetch to send requests with. */
  fetch?: typeof fetch;
}

/** One field at fault, as the API's `details` name it. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class FolioApiError extends Error {
  constructor(
    /** HTTP status, or 0 when no answer came. */
    readonly status: number,
    /** The API's error code, or `network_error`. */
    readonly code: string,
    message: string,
    /** The rest of the API's error body, when it had them. */
    readonly extra: { details?: FieldProblem[]; required_plan?: string; retry_after?: number } = {},
  ) {
    super(message);
    this.name = 'FolioApiError';
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function errorOf(answer: { error?: unknown; response: Response }): FolioApiError {
  const body = answer.error;
  if (body && typeof body === 'object' && 'error' in body && 'message' in body && typeof body.error === 'string' && typeof body.message === 'string') {
    const { details, required_plan, retry_after } = body as { details?: unknown; required_plan?: unknown; retry_after?: unknown };
    return new FolioApiError(answer.response.status, body.error, body.message, {
      ...(Array.isArray(details) ? { details: details as FieldProblem[] } : {}),
      ...(typeof required_plan === 'string' ? { required_plan } : {}),
      ...(typeof retry_after === 'number' ? { retry_after } : {}),
    });
  }
  return new FolioApiError(answer.response.status, 'unexpected_response', `HTTP ${answer.response.status} without an error body`);
}

async function answered<T>(request: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch (err) {
    throw new FolioApiError(0, 'network_error', `no answer from the Folio API: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (answer.data === undefined || !answer.response.ok) throw errorOf(answer);
  return { data: answer.data, response: answer.response };
}

async function settle<T>(request: Promise<Answer<T>>): Promise<T> {
  return (await answered(request)).data;
}

/** The answer with the ETag it came with, to send back as If-Match. */
async function withEtag<T>(request: Promise<Answer<T>>): Promise<{ data: T; etag: string | null }> {
  const { data, response } = await answered(request);
  return { data, etag: response.headers.get('etag') };
}

/** Headers of a conditional write and of a safely retried POST, when given. */
export interface WriteOptions {
  ifMatch?: string;
  idempotencyKey?: string;
}
const ifMatch = (options: WriteOptions): { 'If-Match'?: string } => (options.ifMatch ? { 'If-Match': options.ifMatch } : {});
const idempotent = (options: WriteOptions): { 'Idempotency-Key'?: string } => (options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {});

export interface ListPostsQuery {
  status?: 'draft' | 'published' | 'scheduled';
  tag?: string;
  page?: number;
  per_page?: number;
  sort?: 'created_at' | 'published_at' | 'updated_at';
  order?: 'asc' | 'desc';
}

export type FolioClient = ReturnType<typeof createFolioClient>;
export type Post = Awaited<ReturnType<FolioClient['getPost']>>;
export type PostSummary = Awaited<ReturnType<FolioClient['listPosts']>>['data'][number];

export function createFolioClient(options: FolioClientOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  /** The X-Blog-Id header for a call: the call's blog, else the client's, else none. */
  const blogHeader = (blogId?: string): { 'X-Blog-Id'?: string } => {
    const id = blogId ?? options.blogId;
    return id ? { 'X-Blog-Id': id } : {};
  };

  return {
    /** The blog calls without a blog id of their own fall back to (FOLIO_BLOG_ID). */
    defaultBlogId: options.blogId,

    listBlogs: () => settle(api.GET('/v1/blogs')),
    getBlog: (id: string) => settle(api.GET('/v1/blogs/{id}', { params: { path: { id } } })),
    getBlogVersion: (id: string) => withEtag(api.GET('/v1/blogs/{id}', { params: { path: { id } } })),
    createBlog: (body: BlogInput, write: WriteOptions = {}) => settle(api.POST('/v1/blogs', { params: { header: idempotent(write) }, body })),
    updateBlog: (id: string, body: BlogUpdate, write: WriteOptions = {}) =>
      settle(api.PUT('/v1/blogs/{id}', { params: { path: { id }, header: ifMatch(write) }, body })),
    deleteBlog: (id: string, write: WriteOptions = {}) => settle(api.DELETE('/v1/blogs/{id}', { params: { path: { id }, header: ifMatch(write) } })),
    getPublishingStatus: (id: string) => settle(api.GET('/v1/blogs/{id}/publishing', { params: { path: { id } } })),

    listPosts: (query: ListPostsQuery = {}, blogId?: string) => settle(api.GET('/v1/posts', { params: { query, header: blogHeader(blogId) } })),
    getPost: (slug: string, blogId?: string) => settle(api.GET('/v1/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) } })),
    getPostVersion: (slug: string, blogId?: string) => withEtag(api.GET('/v1/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) } })),
    createPost: (body: PostInput, blogId?: string, write: WriteOptions = {}) =>
      settle(api.POST('/v1/posts', { params: { header: { ...blogHeader(blogId), ...idempotent(write) } }, body })),
    updatePost: (slug: string, body: PostUpdate, blogId?: string, write: WriteOptions = {}) =>
      settle(api.PUT('/v1/posts/{slug}', { params: { path: { slug }, header: { ...blogHeader(blogId), ...ifMatch(write) } }, body })),
    deletePost: (slug: string, blogId?: string, write: WriteOptions = {}) =>
      settle(api.DELETE('/v1/posts/{slug}', { params: { path: { slug }, header: { ...blogHeader(blogId), ...ifMatch(write) } } })),
    publishPost: (slug: string, blogId?: string) => settle(api.POST('/v1/posts/{slug}/publish', { params: { path: { slug }, header: blogHeader(blogId) } })),
    unpublishPost: (slug: string, blogId?: string) =>
      settle(api.POST('/v1/posts/{slug}/unpublish', { params: { path: { slug }, header: blogHeader(blogId) } })),
    schedulePost: (slug: string, scheduledAt: string, blogId?: string) =>
      settle(api.POST('/v1/posts/{slug}/schedule', { params: { path: { slug }, header: blogHeader(blogId) }, body: { scheduled_at: scheduledAt } })),
    listPostRevisions: (slug: string, page: { page?: number; per_page?: number } = {}, blogId?: string) =>
      settle(api.GET('/v1/posts/{slug}/revisions', { params: { path: { slug }, query: page, header: blogHeader(blogId) } })),
    getPostRevision: (slug: string, revisionId: string, blogId?: string) =>
      settle(api.GET('/v1/posts/{slug}/revisions/{revisionId}', { params: { path: { slug, revisionId }, header: blogHeader(blogId) } })),
    restorePostRevision: (slug: string, revisionId: string, blogId?: string, write: WriteOptions = {}) =>
      settle(
        api.POST('/v1/posts/{slug}/revisions/{revisionId}/restore', {
          params: { path: { slug, revisionId }, header: { ...blogHeader(blogId), ...ifMatch(write), ...idempotent(write) } },
        }),
      ),
    createPreviewLink: (slug: string, body: { expires_in?: number } = {}, blogId?: string, write: WriteOptions = {}) =>
      settle(api.POST('/v1/posts/{slug}/preview-link', { params: { path: { slug }, header: { ...blogHeader(blogId), ...idempotent(write) } }, body })),
    search: (q: string, page: { page?: number; per_page?: number } = {}, blogId?: string) =>
      settle(api.GET('/v1/search', { params: { query: { q, ...page }, header: blogHeader(blogId) } })),
    analyticsOverview: (blogId?: string) => settle(api.GET('/v1/analytics/overview', { params: { header: blogHeader(blogId) } })),
    postAnalytics: (slug: string, blogId?: string) => settle(api.GET('/v1/analytics/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) } })),

    uploadMedia: (bytes: Uint8Array, contentType: string, blogId?: string, write: WriteOptions = {}) =>
      settle(
        api.POST('/v1/media', {
          params: { header: { ...blogHeader(blogId), ...idempotent(write) } },
          headers: { 'Content-Type': contentType },
          body: new Blob([new Uint8Array(bytes)], { type: contentType }),
          bodySerializer: (body) => body,
        }),
      ),
    listMedia: (query: { page?: number; per_page?: number } = {}, blogId?: string) =>
      settle(api.GET('/v1/media', { params: { query, header: blogHeader(blogId) } })),
    getMedia: (id: string, blogId?: string) => settle(api.GET('/v1/media/{id}', { params: { path: { id }, header: blogHeader(blogId) } })),
    deleteMedia: (id: string, blogId?: string) => settle(api.DELETE('/v1/media/{id}', { params: { path: { id }, header: blogHeader(blogId) } })),

    registerDomain: (blogId: string, hostname: string, write: WriteOptions = {}) =>
      settle(api.POST('/v1/blogs/{id}/domain', { params: { path: { id: blogId }, header: idempotent(write) }, body: { hostname } })),
    getDomain: (blogId: string) => settle(api.GET('/v1/blogs/{id}/domain', { params: { path: { id: blogId } } })),
    removeDomain: (blogId: string) => settle(api.DELETE('/v1/blogs/{id}/domain', { params: { path: { id: blogId } } })),

    createBlogKey: (blogId: string, body: KeyInput, write: WriteOptions = {}) =>
      settle(api.POST('/v1/blogs/{id}/api-keys', { params: { path: { id: blogId }, header: idempotent(write) }, body })),
    listBlogKeys: (blogId: string) => settle(api.GET('/v1/blogs/{id}/api-keys', { params: { path: { id: blogId } } })),
    revokeBlogKey: (blogId: string, keyId: string) => settle(api.DELETE('/v1/blogs/{id}/api-keys/{keyId}', { params: { path: { id: blogId, keyId } } })),
    createAccountKey: (body: KeyInput, write: WriteOptions = {}) => settle(api.POST('/v1/account/api-keys', { params: { header: idempotent(write) }, body })),
    getAccount: () => settle(api.GET('/v1/account')),
    deleteAccount: (confirm: string) => settle(api.DELETE('/v1/account', { body: { confirm } })),
    listAccountKeys: () => settle(api.GET('/v1/account/api-keys')),
    revokeAccountKey: (keyId: string) => settle(api.DELETE('/v1/account/api-keys/{keyId}', { params: { path: { keyId } } })),

    createWebhook: (blogId: string, body: WebhookInput, write: WriteOptions = {}) =>
      settle(api.POST('/v1/blogs/{id}/webhooks', { params: { path: { id: blogId }, header: idempotent(write) }, body })),
    listWebhooks: (blogId: string) => settle(api.GET('/v1/blogs/{id}/webhooks', { params: { path: { id: blogId } } })),
    deleteWebhook: (blogId: string, webhookId: string) =>
      settle(api.DELETE('/v1/blogs/{id}/webhooks/{webhookId}', { params: { path: { id: blogId, webhookId } } })),
    listWebhookDeliveries: (blogId: string, webhookId: string) =>
      settle(api.GET('/v1/blogs/{id}/webhooks/{webhookId}/deliveries', { params: { path: { id: blogId, webhookId } } })),
    redeliverWebhookDelivery: (blogId: string, webhookId: string, deliveryId: string) =>
      settle(api.POST('/v1/blogs/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path: { id: blogId, webhookId, deliveryId } } })),
  };
}
