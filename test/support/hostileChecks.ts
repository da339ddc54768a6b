/**
 * What the property suites check after hostile requests: the error body of decisions.md, and that
 * every stored row is still within the documented limits (nothing invalid, nothing half-written).
 */
import { expect } from 'vitest';
import type { TestApp, TestResponse } from './testApp.js';
import type { HostileResponse } from './hostileHttp.js';
import { ERROR_CODES } from './factories.js';
import { RESERVED_SLUGS, SLUG_PATTERN } from '../../src/services/slugs.js';
import { GRANTABLE_SCOPES } from '../../src/services/authContext.js';
import { KEEP_DAILY, KEEP_NEWEST } from '../../src/services/revisionRecord.js';

const SLUG_RE = new RegExp(SLUG_PATTERN, 'u');
const BLOG_SLUG_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const chars = (s: string): number => Array.from(s).length;

export const ERROR_KEYS = new Set(['error', 'message', 'details', 'required_plan', 'retry_after']);

export function checkResponse(res: TestResponse, success: number, label: string): void {
  const where = `${label}: ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).not.toBe(500);
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get('content-type') ?? '', where).toMatch(/^application\/json/);
  if (res.status >= 400) {
    expect(typeof res.body, where).toBe('object');
    expect(ERROR_CODES as readonly string[], where).toContain(res.body.error);
    expect(typeof res.body.message, where).toBe('string');
    expect(res.body.message.length, where).toBeGreaterThan(0);
    for (const key of Object.keys(res.body)) expect(ERROR_KEYS.has(key), where).toBe(true);
    expect(res.text, where).not.toMatch(/\n\s+at |node_modules|<html/i);
  } else {
    expect(res.status, where).toBe(success);
  }
}

export function expectPrototypeClean(): void {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).customCss).toBeUndefined();
}

export async function checkPostRows(t: TestApp): Promise<void> {
  const rows = await t.folio.sql.all<Record<string, any>>('SELECT * FROM posts');
  for (const row of rows) {
    const where = JSON.stringify({ slug: row.slug, tags: row.tags, status: row.status }).slice(0, 300);
    expect(SLUG_RE.test(row.slug), where).toBe(true);
    expect(chars(row.slug), where).toBeLessThanOrEqual(100);
    expect(RESERVED_SLUGS.has(row.slug), where).toBe(false);
    expect(['draft', 'published', 'scheduled'], where).toContain(row.status);
    const tags = JSON.parse(row.tags) as unknown[];
    expect(Array.isArray(tags), where).toBe(true);
    expect(tags.length, where).toBeLessThanOrEqual(10);
    for (const tag of tags) {
      expect(typeof tag, where).toBe('string');
      expect((tag as string).trim().length, where).toBeGreaterThan(0);
      expect(chars(tag as string), where).toBeLessThanOrEqual(50);
    }
    expect(typeof row.title).toBe('string');
    expect(row.title.trim().length, where).toBeGreaterThan(0);
    expect(Buffer.byteLength(row.content_md), where).toBeLessThanOrEqual(1024 * 1024);
    expect(row.content_html, where).not.toMatch(/<script|<iframe|<form|<style|\son[a-z]+\s*=|(href|src)\s*=\s*["']?\s*javascript:/i);
    if (row.og_image_url !== null) expect(row.og_image_url, where).toMatch(/^https?:\/\/\S+$/);
    expect(row.published_at !== null, where).toBe(row.status === 'published');
    if (row.scheduled_at !== null) expect(row.status, where).toBe('scheduled');
    for (const ts of [row.created_at, row.updated_at, row.published_at, row.scheduled_at]) if (ts !== null) expect(ts, where).toMatch(ISO_MS);
  }
  const tagRows = (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM post_tags'))!.n;
  const expected = rows.reduce((n, row) => n + new Set(JSON.parse(row.tags)).size, 0);
  expect(tagRows).toBe(expected);
}

export async function checkBlogRows(t: TestApp): Promise<void> {
  for (const row of await t.folio.sql.all<Record<string, any>>('SELECT * FROM blogs')) {
    const where = JSON.stringify({ slug: row.slug, name: String(row.name).slice(0, 40), theme: String(row.theme_config).slice(0, 80) });
    expect(BLOG_SLUG_RE.test(row.slug), where).toBe(true);
    expect(row.name.trim().length, where).toBeGreaterThan(0);
    expect(chars(row.name), where).toBeLessThanOrEqual(200);
    expect(chars(row.description), where).toBeLessThanOrEqual(1000);
    const theme = JSON.parse(row.theme_config) as Record<string, unknown>;
    expect(theme !== null && typeof theme === 'object' && !Array.isArray(theme), where).toBe(true);
    expect(Object.getPrototypeOf(theme), where).toBe(Object.prototype);
    for (const [key, value] of Object.entries(theme)) {
      expect(['customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml'], where).toContain(key);
      expect(typeof value, where).toBe('string');
    }
    if (typeof theme.cssUrl === 'string') expect(theme.cssUrl, where).toMatch(/^https?:\/\/\S+$/);
  }
}

export async function checkKeyRows(t: TestApp): Promise<void> {
  for (const row of await t.folio.sql.all<Record<string, any>>('SELECT * FROM api_keys')) {
    expect(row.name.trim().length).toBeGreaterThan(0);
    expect(chars(row.name)).toBeLessThanOrEqual(100);
    const scopes = JSON.parse(row.scopes) as unknown[];
    expect(scopes.length).toBeGreaterThan(0);
    for (const scope of scopes) expect(GRANTABLE_SCOPES).toContain(scope);
    if (row.expires_at === null) continue;
    // Within (created_at, created_at + ten years], in the one stored format.
    expect(row.expires_at).toMatch(ISO_MS);
    expect(row.expires_at > row.created_at).toBe(true);
    const latest = new Date(row.created_at);
    latest.setUTCFullYear(latest.getUTCFullYear() + 10);
    expect(Date.parse(row.expires_at)).toBeLessThanOrEqual(latest.getTime());
  }
}

export function isValidHostname(hostname: string): boolean {
  const labels = hostname.split('.');
  return (
    hostname.length <= 253 &&
    hostname === hostname.toLowerCase() &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!) &&
    hostname !== 'localhost' &&
    !hostname.endsWith('.localhost')
  );
}

// ---------------------------------------------------------------------------------------------
// Checks of raw responses (test/support/hostileHttp.ts) and of the database after a run.

/** Marks of a stack trace or of source paths; no answer may carry one. */
export const STACK_MARKS = /\n\s+at\s|node:internal|\.ts:\d|node_modules|\/src\/[\w/]+\.[jt]s/;
const REQUEST_ID = /^[\w.-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The error body's allowed codes and keys, read from the OpenAPI document's ApiError schema. */
export interface ErrorContract {
  codes: readonly string[];
  keys: readonly string[];
}

export function errorContractOf(openapi: { components: { schemas: { ApiError: { properties: Record<string, { enum?: string[] }> } } } }): ErrorContract {
  const properties = openapi.components.schemas.ApiError.properties;
  return { codes: properties.error?.enum ?? [], keys: Object.keys(properties) };
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...stringsIn(v)]);
  return [];
}

/**
 * The invariants every answer keeps, whatever was sent: an answer came; no 5xx but a 503 with
 * Retry-After (and no 503 at all while nothing is overloaded, as in these suites); nothing that
 * looks like a stack; the request id is echoed only when it is safe, else replaced by a UUID.
 */
export function expectSoundAnswer(res: HostileResponse, where: string, sentRequestId: string | undefined): void {
  expect(res.status, `${where}: no answer`).toBeGreaterThan(0);
  if (res.status === 503) expect(res.headers['retry-after'] ?? '', `${where}: 503 without Retry-After`).toMatch(/^\d+$/);
  expect(res.status, `${where}: 503 while nothing is overloaded`).not.toBe(503);
  expect(res.status, where).toBeLessThan(500);
  expect(res.text, `${where}: stack or source path in the body`).not.toMatch(STACK_MARKS);
  // One expect for the first offending string: one per string made GET /v1/openapi.json's
  // thousands of strings cost 150 ms an answer.
  expect(
    stringsIn(res.json).find((s) => STACK_MARKS.test(s)),
    `${where}: stack or source path in the body`,
  ).toBeUndefined();
  const id = res.headers['x-request-id'];
  expect(id, `${where}: X-Request-Id`).toBeDefined();
  // Node trims the value. A safe id is echoed (requests the HTTP layer refuses before the app
  // runs get a fresh one); anything else is replaced, never reflected.
  const sent = sentRequestId?.replace(/^[ \t]+|[ \t]+$/g, '');
  if (sent !== undefined && REQUEST_ID.test(sent) && id === sent) return;
  expect(id, `${where}: X-Request-Id neither the safe id sent nor a fresh UUID`).toMatch(UUID);
}

/** An answer of the API (or of the HTTP layer in front of it): JSON, and `{error, message}` for errors. */
export function expectApiAnswer(res: HostileResponse, where: string, contract: ErrorContract): void {
  // Accepted with nothing to say (POST /mcp given a notification), or done with nothing to
  // answer (204: DELETE /v1/posts/:slug/preview-link): no body, so no type.
  if ((res.status === 202 || res.status === 204) && res.body.length === 0) return;
  expect(res.headers['content-type'] ?? '', `${where}: content type`).toMatch(/^application\/json/);
  if (res.status < 400) return;
  if (res.method === 'HEAD' && res.body.length === 0) {
    // A HEAD answer carries no body, only the length of the one a GET would get.
    expect(Number(res.headers['content-length'] ?? 0), `${where}: empty error body`).toBeGreaterThan(0);
    return;
  }
  const body = res.json as Record<string, unknown> | undefined;
  expect(body !== null && typeof body === 'object' && !Array.isArray(body), `${where}: error body is not a JSON object`).toBe(true);
  expect(contract.codes, where).toContain(body!.error);
  expect(typeof body!.message, where).toBe('string');
  expect((body!.message as string).length, where).toBeGreaterThan(0);
  for (const key of Object.keys(body!)) expect(contract.keys, `${where}: unexpected key ${key}`).toContain(key);
  if (body!.details !== undefined) {
    expect(Array.isArray(body!.details), where).toBe(true);
    for (const issue of body!.details as Record<string, unknown>[]) {
      expect(Object.keys(issue).sort(), where).toEqual(['field', 'message']);
      expect(typeof issue.field, where).toBe('string');
      expect(typeof issue.message, where).toBe('string');
    }
  }
}

/** Rows of the tables a 201 adds to, and the database's count of every row written (rolled back or not). */
export interface WriteMark {
  rows: number;
  changes: number;
}

export async function markWrites(t: TestApp): Promise<WriteMark> {
  const rows = (await t.folio.sql.get<{ n: number }>(
    'SELECT (SELECT COUNT(*) FROM posts) + (SELECT COUNT(*) FROM blogs) + (SELECT COUNT(*) FROM api_keys) + (SELECT COUNT(*) FROM domains) + (SELECT COUNT(*) FROM media) + (SELECT COUNT(*) FROM webhooks) + (SELECT COUNT(*) FROM preview_links) AS n',
  ))!;
  return { rows: rows.n, changes: await rowsWritten(t) };
}

/** Apps whose PostgreSQL database counts its row writes (countRowWrites). */
const counting = new WeakSet<TestApp>();

/**
 * Every row written so far: SQLite counts those of the app's connection (total_changes());
 * PostgreSQL has no such count, so the app's database gets one, a sequence that a trigger on
 * every table advances for each row inserted, updated or deleted (also when rolled back, as
 * SQLite's count goes on too).
 */
async function rowsWritten(t: TestApp): Promise<number> {
  if (t.folio.sql.dialect === 'sqlite') return (t.folio.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  if (!counting.has(t)) {
    await countRowWrites(t);
    counting.add(t);
  }
  // A sequence not yet advanced holds its start (1) with is_called false.
  const sequence = (await t.folio.sql.get<{ last_value: number; is_called: boolean }>('SELECT last_value, is_called FROM test_row_writes'))!;
  return sequence.is_called ? sequence.last_value : 0;
}

async function countRowWrites(t: TestApp): Promise<void> {
  await t.folio.sql.run('CREATE SEQUENCE test_row_writes');
  await t.folio.sql.run(
    `CREATE FUNCTION test_count_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM nextval('test_row_writes'); RETURN NULL; END $$`,
  );
  const tables = await t.folio.sql.all<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()');
  for (const { name } of tables) {
    await t.folio.sql.run(`CREATE TRIGGER test_row_writes AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION test_count_row_write()`);
  }
}

/**
 * A refused request wrote nothing at all (no half-written row, not even a job); a 201 added
 * exactly one resource row; any other success added none (deletions may remove some).
 */
export function expectWritesMatch(before: WriteMark, after: WriteMark, status: number, where: string): void {
  if (status === 201) expect(after.rows - before.rows, `${where}: rows added by a 201`).toBe(1);
  else if (status >= 200 && status < 300) expect(after.rows, `${where}: rows added without a 201`).toBeLessThanOrEqual(before.rows);
  else expect(after.changes - before.changes, `${where}: rows written by a refused request`).toBe(0);
}

export async function checkDomainRows(t: TestApp): Promise<void> {
  for (const row of await t.folio.sql.all<{ hostname: string; status: string }>('SELECT hostname, status FROM domains')) {
    expect(isValidHostname(row.hostname), row.hostname).toBe(true);
    expect(['pending_verification', 'active'], row.hostname).toContain(row.status);
  }
}

/**
 * SQLite's own checks (PostgreSQL checks every foreign key as it is written, and has no
 * integrity pragma), then every stored resource within the documented limits.
 */
export async function checkDatabase(t: TestApp): Promise<void> {
  if (t.folio.sql.dialect === 'sqlite') {
    expect(t.folio.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(t.folio.db.pragma('foreign_key_check')).toEqual([]);
  }
  await checkPostRows(t);
  await checkBlogRows(t);
  await checkKeyRows(t);
  await checkDomainRows(t);
  await checkMediaRows(t);
  await checkRevisionRows(t);
}

/** Revisions: sizes as stored, titles within the post's limits, no post holding more than is kept. */
export async function checkRevisionRows(t: TestApp): Promise<void> {
  const rows = await t.folio.sql.all<{
    post_id: string;
    title: string;
    content_length: number;
    bytes: number;
    created_at: string;
    opened_at: string;
  }>('SELECT post_id, title, content_length, octet_length(content_md) AS bytes, created_at, opened_at FROM post_revisions');
  const perPost = new Map<string, number>();
  for (const row of rows) {
    expect(row.content_length, row.post_id).toBe(row.bytes);
    expect(row.bytes, row.post_id).toBeLessThanOrEqual(1024 * 1024);
    expect(row.title.trim().length, row.post_id).toBeGreaterThan(0);
    expect(row.created_at >= row.opened_at, row.post_id).toBe(true);
    perPost.set(row.post_id, (perPost.get(row.post_id) ?? 0) + 1);
  }
  for (const [postId, n] of perPost) expect(n, postId).toBeLessThanOrEqual(KEEP_NEWEST + KEEP_DAILY);
}

export async function checkMediaRows(t: TestApp): Promise<void> {
  for (const row of await t.folio.sql.all<{
    id: string;
    hash: string;
    format: string;
    width: number;
    height: number;
    bytes: number;
  }>('SELECT id, hash, format, width, height, bytes FROM media')) {
    expect(row.hash, row.id).toMatch(/^[0-9a-f]{20}$/);
    expect(['jpeg', 'png', 'webp', 'gif', 'avif'], row.id).toContain(row.format);
    expect(row.width * row.height, row.id).toBeGreaterThan(0);
    expect(row.bytes, row.id).toBeGreaterThan(0);
  }
}
