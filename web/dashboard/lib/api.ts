/**
 * The dashboard's one way to the /v1 API: the same operations, validation, scopes, plans and
 * rate limits as any client (docs/dashboard.md). The browser's session cookie authenticates;
 * every state-changing request carries the page's CSRF token (`<meta name="folio-csrf">`), which
 * the API checks for cookie-authenticated calls.
 */

/** An answer other than 2xx: the API's `{error, message}` body and its headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
    readonly headers: Headers,
  ) {
    super(message);
  }
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** JSON-encoded as the body; a Blob or FormData is sent as it is (media uploads). */
  body?: unknown;
  /** The blog the call acts on (X-Blog-Id). */
  blogId?: string;
  /** The version the caller last saw: refused with 412 when the resource changed since. */
  ifMatch?: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
  etag: string | null;
  headers: Headers;
}

export function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="folio-csrf"]')?.content ?? '';
}

export async function api<T = unknown>(path: string, request: ApiRequest = {}): Promise<ApiAnswer<T>> {
  const method = request.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken();
  if (request.blogId) headers['X-Blog-Id'] = request.blogId;
  if (request.ifMatch) headers['If-Match'] = request.ifMatch;
  let body: BodyInit | undefined;
  if (request.body instanceof Blob || request.body instanceof FormData) body = request.body;
  else if (request.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  const url = new URL(`/v1${path}`, window.location.origin);
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  const response = await fetch(url, { method, headers, body, credentials: 'same-origin', signal: request.signal });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = { error: 'bad_response', message: text.slice(0, 200) };
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as Record<string, unknown>;
    const message = typeof error.message === 'string' ? error.message : `the API answered ${response.status}`;
    throw new ApiError(response.status, typeof error.error === 'string' ? error.error : 'error', message, error, response.headers);
  }
  return { status: response.status, body: parsed as T, etag: response.headers.get('etag'), headers: response.headers };
}
