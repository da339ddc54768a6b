/**
 * Factories for the integration suite: each test creates only the accounts, blogs, posts and
 * keys it needs, through the public API (accounts through the service, as the CLI does).
 */
import { expect } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import type { RequestOptions, TestApp, TestResponse } from './testApp.js';

/** ISO 8601 UTC with milliseconds (decisions.md "Posts"). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limit_exceeded',
  'idempotency_key_reused',
  'precondition_failed',
  'internal_error',
  'service_unavailable',
  'insufficient_storage',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The fields an error body may carry besides error and message (decisions.md "Errors"). */
const ERROR_EXTRAS = ['details', 'required_plan', 'retry_after'];

let sequence = 0;
/** A blog slug no other test in the process has used (blog slugs are unique across accounts). */
export function uniqueSlug(prefix = 'blog'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}`;
}

export function sortedKeys(value: unknown): string[] {
  return Object.keys(value as object).sort();
}

/** A caller: an account and one of its keys, with request() bound to that key. */
export interface Actor {
  accountId: string;
  plan: Plan;
  key: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
}

export function actorFor(t: TestApp, key: string, accountId: string, plan: Plan): Actor {
  return { accountId, plan, key, request: (method, path, options = {}) => t.request(method, path, { key, ...options }) };
}

export async function buildAccount(t: TestApp, plan: Plan = 'enterprise'): Promise<Actor> {
  const { accountId, key } = await t.createAccount(plan);
  return actorFor(t, key, accountId, plan);
}

export interface BuiltBlog {
  id: string;
  slug: string;
  name: string;
  url: string;
  actor: Actor;
}

export async function buildBlog(
  t: TestApp,
  options: { actor?: Actor; plan?: Plan; slug?: string; name?: string; description?: string } = {},
): Promise<BuiltBlog> {
  const actor = options.actor ?? (await buildAccount(t, options.plan ?? 'enterprise'));
  const slug = options.slug ?? uniqueSlug();
  const res = await actor.request('POST', '/v1/blogs', {
    body: { slug, name: options.name ?? `Blog ${slug}`, ...(options.description !== undefined ? { description: options.description } : {}) },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, slug: res.body.slug, name: res.body.name, url: res.body.url, actor };
}

export interface PostInput {
  title?: string;
  content?: string;
  slug?: string;
  tags?: string[];
  status?: string;
  meta?: Record<string, unknown>;
  published_at?: string;
  aliases?: string[];
}

/** Creates a post in the blog through POST /v1/posts; returns the creation response body. */
export async function buildPost(
  blog: BuiltBlog,
  input: PostInput = {},
): Promise<{ id: string; slug: string; url: string; status: string; created_at: string }> {
  const res = await blog.actor.request('POST', '/v1/posts', {
    blogId: blog.id,
    body: { title: 'A post', content: 'Some *Markdown* content.', ...input },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A path segment for a post slug (Korean slugs are percent-encoded). */
export function postPath(slug: string, suffix = ''): string {
  return `/v1/posts/${encodeURIComponent(slug)}${suffix}`;
}

export async function createKey(
  actor: Actor,
  blogId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; name: string; key: string; prefix: string; created_at: string }> {
  const res = await actor.request('POST', `/v1/blogs/${blogId}/api-keys`, { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Nothing a client sees may be HTML or carry a stack trace (decisions.md "Errors"). */
export function expectNoLeak(res: TestResponse): void {
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(res.text).not.toMatch(/<html|<!doctype|<body/i);
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\/src\/|\.ts:\d+|Error: /);
}

/** Asserts `{error, message}` (plus only the listed extras) with the given status and code. */
export function expectError(res: TestResponse, status: number, code: ErrorCode): void {
  expect(res.status, res.text).toBe(status);
  expectNoLeak(res);
  expect(typeof res.body).toBe('object');
  expect(res.body.error).toBe(code);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(res.body)) expect(['error', 'message', ...ERROR_EXTRAS]).toContain(key);
  if (res.body.details !== undefined) {
    expect(Array.isArray(res.body.details)).toBe(true);
    for (const issue of res.body.details) {
      expect(sortedKeys(issue)).toEqual(['field', 'message']);
      expect(typeof issue.field).toBe('string');
      expect(typeof issue.message).toBe('string');
    }
  }
}

/** A validation 400 whose details name the given field. */
export function expectFieldError(res: TestResponse, field: string): void {
  expectError(res, 400, 'bad_request');
  expect(res.body.details, res.text).toBeDefined();
  expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
}

/** A plan 403: forbidden with the plan that would allow it. */
export function expectPlanError(res: TestResponse, requiredPlan: Plan): void {
  expectError(res, 403, 'forbidden');
  expect(res.body.required_plan).toBe(requiredPlan);
}

/** Rows in a table of the app's database (for "nothing else was stored" checks). */
export async function countRows(t: TestApp, table: 'posts' | 'blogs' | 'api_keys' | 'domains' | 'publish_jobs' | 'accounts'): Promise<number> {
  return (await t.folio.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
}

/** Jobs the handler received since `from` (an index into t.handledJobs). */
export function jobsSince(t: TestApp, from: number): { kind: string; blogId: string; payload: Record<string, unknown> }[] {
  return t.handledJobs.slice(from).map((job) => ({ kind: job.kind, blogId: job.blogId, payload: job.payload as Record<string, unknown> }));
}
