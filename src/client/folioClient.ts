/**
 * The small typed client of Folio's HTTP API that the command line (`folio push`, `folio pull`)
 * and the MCP server use (issue 14): they talk to a Folio, local or remote, exactly as any other
 * client does, never to its services. Requests and answers are typed by the types generated
 * from the server's own OpenAPI document (`generated/folioApi.ts`, `npm run generate:client`;
 * a test fails when it drifts), sent by `openapi-fetch`.
 *
 * Every failure becomes a FolioApiError carrying the API's `error` code and `message`
 * (decisions.md), or `network_error` when no answer came.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/folioApi.js';

export type PostInput = NonNullable<paths['/v1/posts']['post']['requestBody']>['content']['application/json'];
export type PostUpdate = NonNullable<paths['/v1/posts/{slug}']['put']['requestBody']>['content']['application/json'];

export interface FolioClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:3000` (FOLIO_API_URL). */
  baseUrl: string;
  /** A Folio API key (FOLIO_API_KEY). */
  apiKey: string;
  /** Used for the blog of post, search and media calls when the key is not bound to one. */
  blogId?: string;
  /** For tests and embedding: the fetch to send requests with. */
  fetch?: typeof fetch;
}

export class FolioApiError extends Error {
  constructor(
    /** HTTP status, or 0 when no answer came. */
    readonly status: number,
    /** The API's error code (decisions.md), or `network_error`. */
    readonly code: string,
    message: string,
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
    return new FolioApiError(answer.response.status, body.error, body.message);
  }
  return new FolioApiError(answer.response.status, 'unexpected_response', `HTTP ${answer.response.status} without an error body`);
}

async function settle<T>(request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch (err) {
    throw new FolioApiError(0, 'network_error', `no answer from the Folio API: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (answer.data === undefined || !answer.response.ok) throw errorOf(answer);
  return answer.data;
}

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
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  /** The X-Blog-Id header for a call: the call's blog, else the client's, else none. */
  const blogHeader = (blogId?: string): { 'X-Blog-Id'?: string } => {
    const id = blogId ?? options.blogId;
    return id ? { 'X-Blog-Id': id } : {};
  };

  return {
    listBlogs: () => settle(api.GET('/v1/blogs')),
    getBlog: (id: string) => settle(api.GET('/v1/blogs/{id}', { params: { path: { id } } })),
    listPosts: (query: ListPostsQuery = {}, blogId?: string) => settle(api.GET('/v1/posts', { params: { query, header: blogHeader(blogId) } })),
    getPost: (slug: string, blogId?: string) => settle(api.GET('/v1/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) } })),
    createPost: (body: PostInput, blogId?: string) => settle(api.POST('/v1/posts', { params: { header: blogHeader(blogId) }, body })),
    updatePost: (slug: string, body: PostUpdate, blogId?: string) =>
      settle(api.PUT('/v1/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) }, body })),
    deletePost: (slug: string, blogId?: string) => settle(api.DELETE('/v1/posts/{slug}', { params: { path: { slug }, header: blogHeader(blogId) } })),
    publishPost: (slug: string, blogId?: string) => settle(api.POST('/v1/posts/{slug}/publish', { params: { path: { slug }, header: blogHeader(blogId) } })),
    unpublishPost: (slug: string, blogId?: string) => settle(api.POST('/v1/posts/{slug}/unpublish', { params: { path: { slug }, header: blogHeader(blogId) } })),
    schedulePost: (slug: string, scheduledAt: string, blogId?: string) =>
      settle(api.POST('/v1/posts/{slug}/schedule', { params: { path: { slug }, header: blogHeader(blogId) }, body: { scheduled_at: scheduledAt } })),
    search: (q: string, page: { page?: number; per_page?: number } = {}, blogId?: string) =>
      settle(api.GET('/v1/search', { params: { query: { q, ...page }, header: blogHeader(blogId) } })),
    uploadMedia: (bytes: Uint8Array, contentType: string, blogId?: string) =>
      settle(
        api.POST('/v1/media', {
          params: { header: blogHeader(blogId) },
          headers: { 'Content-Type': contentType },
          body: new Blob([new Uint8Array(bytes)], { type: contentType }),
          bodySerializer: (body) => body,
        }),
      ),
  };
}
