/**
 * Random and hostile JSON thrown at every write endpoint: whatever arrives, the answer is never a
 * 500, every 4xx is `{error, message}`, nothing invalid is stored, and rows only grow by the
 * number of 201s. Bodies are serialised by hand so that keys like `__proto__` reach the server.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { ERROR_CODES, buildBlog, buildPost, countRows, uniqueSlug, type BuiltBlog } from '../support/factories.js';
import { RESERVED_SLUGS, SLUG_PATTERN } from '../../src/services/slugs.js';
import { SCOPES } from '../../src/services/authContext.js';

/** Runs per property; raise with HOSTILE_RUNS=2000 for a deeper local search. */
const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);
const SLUG_RE = new RegExp(SLUG_PATTERN, 'u');
const BLOG_SLUG_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const chars = (s: string): number => Array.from(s).length;

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Sentence text of about n characters (long runs without punctuation are reported separately). */
const prose = (n: number): string => 'Lorem ipsum dolor sit amet. '.repeat(Math.ceil(n / 28)).slice(0, n);

const nastyString = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\u202e\u0644',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "'; DROP TABLE posts; --",
  '" OR 1=1 --',
  '../../etc/passwd',
  '%00',
  '%E0%A4%A',
  'javascript:alert(1)',
  'https://example.com/a.png',
  'page',
  'rss.xml',
  'tags',
  '안녕 세상',
  '안녕-세상',
  '🙂🙂',
  'a\u0301',
  'NaN',
  'null',
  'true',
  '-1',
  'UPPER',
  'valid-slug',
  'blog.example.com',
  'Blog.Example.com',
  'x.localhost',
  '*',
  'posts:read',
  'posts:write',
  'keys:manage',
  '2031-01-01T00:00:00Z',
);

const bigString = fc.constantFrom(
  'x'.repeat(51),
  'x'.repeat(64),
  'x'.repeat(101),
  'x'.repeat(201),
  'x'.repeat(1001),
  'y'.repeat(3000),
  prose(50_000),
  prose(1024 * 1024),
  prose(1024 * 1024 + 1),
);

const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: bigString },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,3}$/) },
);

const leaf = fc.oneof(
  { weight: 5, arbitrary: anyString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53, -0, 1e308, 0.1) },
);

const pollutionKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '');

/** [key, value] entries; serialised by hand so duplicate and `__proto__` keys survive. */
type Entries = [string, unknown][];
const RAW = Symbol('raw JSON text');
type Raw = { [RAW]: string };

function serialise(value: unknown): string {
  if (value && typeof value === 'object' && RAW in value) return (value as Raw)[RAW];
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`;
  if (value && typeof value === 'object') return serialise(objectOf(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}
function objectOf(entries: Entries): Raw {
  return { [RAW]: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${serialise(v)}`).join(',')}}` };
}

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'json' },
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 12 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(pollutionKey, fc.string({ maxLength: 10 })), tie('value')), { maxLength: 5 })
        .map((entries) => objectOf(entries as Entries)),
    },
  ),
})).value;

/** Polluting payloads that would show up on Object.prototype if anything merged them naively. */
const pollution = fc.constantFrom<Raw>(
  objectOf([['__proto__', objectOf([['polluted', 'yes']])]]),
  objectOf([['constructor', objectOf([['prototype', objectOf([['polluted', 'yes']])]])]]),
  objectOf([['__proto__', objectOf([['customCss', 'x']])]]),
  // Objects whose valueOf/toString are not functions break naive deep-equal and string coercion.
  objectOf([['valueOf', 1]]),
  objectOf([['toString', 'x'], ['valueOf', null]]),
);

/** A body built around the endpoint's own fields, with hostile values and extra keys. */
function fieldsBody(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Raw> {
  const known = Object.entries(fields).map(([key, valid]) =>
    fc.option(fc.tuple(fc.constant(key), fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: jsonValue }, { weight: 1, arbitrary: pollution })), { nil: undefined, freq: 3 }),
  );
  const extras = fc.array(fc.tuple(fc.oneof(pollutionKey, fc.string({ maxLength: 12 })), fc.oneof(jsonValue, pollution)), { maxLength: 2 });
  return fc.tuple(fc.tuple(...known), fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extras })).map(([picked, extra]) =>
    objectOf([...(picked.filter((e) => e !== undefined) as Entries), ...(extra as Entries)]),
  );
}

/**
 * A whole request body: well-typed bodies with hostile values (so that many requests succeed and
 * reach the database), endpoint-shaped bodies with hostile types, anything at all, or not JSON.
 */
function bodyFor(fields: Record<string, fc.Arbitrary<unknown>>, wellTyped: fc.Arbitrary<unknown>): fc.Arbitrary<{ raw: string; type: string }> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: wellTyped.map(serialise) },
        { weight: 6, arbitrary: fieldsBody(fields).map(serialise) },
        { weight: 2, arbitrary: jsonValue.map(serialise) },
        { weight: 1, arbitrary: pollution.map(serialise) },
        { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', '[1,', 'undefined', '{"__proto__":', '\u0000', '') },
      ),
      fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'application/xml') }),
    )
    .map(([raw, type]) => ({ raw, type }));
}

/** Strings of the right type that are often, but not always, acceptable. */
const text = (max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 60) }) },
    { weight: 2, arbitrary: nastyString },
    { weight: 1, arbitrary: bigString },
  );
const slugText = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z0-9가-힣]{1,12}(-[a-z0-9]{1,8}){0,3}$/) },
  { weight: 2, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const defined = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));

const tagList = fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,10}$/), anyString), { maxLength: 12 });
const postFields = {
  title: anyString,
  content: fc.oneof(anyString, fc.constantFrom('# Title\n\nBody.', '<script>alert(1)</script>', '[x](javascript:alert(1))')),
  slug: anyString,
  tags: tagList,
  status: fc.constantFrom('draft', 'published', 'scheduled', 'archived', 'DRAFT'),
  meta: fc.record({ description: fc.oneof(anyString, fc.constant(null)), og_image: fc.oneof(anyString, fc.constant(null)) }, { requiredKeys: [] }),
};
const wellTypedPost = fc
  .record({
    title: text(300),
    content: fc.oneof(text(5000), fc.constantFrom('# Title\n\nBody.', '<script>alert(1)</script>', '<img src=x onerror=alert(1)> [x](javascript:alert(1))')),
    slug: optional(slugText),
    tags: optional(fc.array(fc.oneof({ weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }) }, { weight: 1, arbitrary: text(60) }), { maxLength: 11 })),
    status: optional(fc.constantFrom('draft', 'published', 'published', 'scheduled')),
    meta: optional(fc.record({ description: optional(fc.oneof(text(300), fc.constant(null))), og_image: optional(fc.oneof(fc.webUrl(), text(50), fc.constant(null))) }).map(defined)),
  })
  .map(defined);
const wellTypedPostUpdate = wellTypedPost.chain((post) => fc.subarray(Object.keys(post), { minLength: 1 }).map((keys) => Object.fromEntries(keys.map((k) => [k, post[k]]))));

const blogFields = {
  slug: fc.oneof(anyString, fc.stringMatching(/^[a-z0-9]{1,20}$/)),
  name: anyString,
  description: anyString,
};
const themeKeys = fc.constantFrom('customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml', 'bodyHtml', '__proto__');
const blogUpdateFields = {
  name: anyString,
  description: anyString,
  theme_config: fc
    .array(fc.tuple(themeKeys, fc.oneof(anyString, fc.constant(null), jsonValue)), { maxLength: 4 })
    .map((entries) => objectOf(entries as Entries)),
};
const wellTypedBlog = fc
  .record({ slug: fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/) }, { weight: 1, arbitrary: slugText }), name: text(200), description: optional(text(1000)) })
  .map(defined);
const themeValue = (key: string) => (key === 'cssUrl' ? fc.oneof(fc.webUrl(), text(50), fc.constant(null)) : fc.oneof(text(2000), fc.constant(null)));
const wellTypedBlogUpdate = fc
  .record({
    name: optional(text(200)),
    description: optional(text(1000)),
    theme_config: optional(
      fc
        .subarray(['customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml'])
        .chain((keys) => fc.tuple(...keys.map((key) => themeValue(key).map((value) => [key, value] as [string, unknown]))))
        .map((entries) => Object.fromEntries(entries)),
    ),
  })
  .map(defined);

const keyFields = {
  name: anyString,
  scopes: fc.oneof(fc.subarray(['*', ...SCOPES]), fc.array(anyString, { maxLength: 4 }), jsonValue),
};
const wellTypedKey = fc.record({ name: optional(text(100)), scopes: optional(fc.subarray(['*', ...SCOPES], { minLength: 1 })) }).map(defined);

const domainFields = {
  hostname: fc.oneof(
    anyString,
    fc.stringMatching(/^[a-z0-9]{1,10}(\.[a-z0-9]{1,10}){1,3}$/),
    fc.constantFrom('blog.example.com', 'a.b', 'x.localhost', '1.2.3.4', 'a..b', '-a.com', 'a-.com', `${'a'.repeat(63)}.com`, `${'a'.repeat(64)}.com`),
  ),
};

const wellTypedDomain = fc.record({
  hostname: fc.oneof(
    { weight: 4, arbitrary: fc.domain() },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]{1,10}(\.[a-z0-9]{1,10}){1,3}$/) },
    { weight: 1, arbitrary: nastyString },
  ),
});

// ---------------------------------------------------------------------------------------------
// Checks

const ERROR_KEYS = new Set(['error', 'message', 'details', 'required_plan', 'retry_after']);

function checkResponse(res: TestResponse, success: number, label: string): void {
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

function expectPrototypeClean(): void {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).customCss).toBeUndefined();
}

function checkPostRows(t: TestApp): void {
  const rows = t.folio.db.prepare('SELECT * FROM posts').all() as Record<string, any>[];
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
  const tagRows = (t.folio.db.prepare('SELECT COUNT(*) AS n FROM post_tags').get() as { n: number }).n;
  const expected = rows.reduce((n, row) => n + new Set(JSON.parse(row.tags)).size, 0);
  expect(tagRows).toBe(expected);
}

function checkBlogRows(t: TestApp): void {
  for (const row of t.folio.db.prepare('SELECT * FROM blogs').all() as Record<string, any>[]) {
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

function checkKeyRows(t: TestApp): void {
  for (const row of t.folio.db.prepare('SELECT * FROM api_keys').all() as Record<string, any>[]) {
    expect(row.name.trim().length).toBeGreaterThan(0);
    expect(chars(row.name)).toBeLessThanOrEqual(100);
    const scopes = JSON.parse(row.scopes) as unknown[];
    expect(scopes.length).toBeGreaterThan(0);
    for (const scope of scopes) expect(['*', ...SCOPES]).toContain(scope);
  }
}

function isValidHostname(hostname: string): boolean {
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

let t: TestApp;
let blog: BuiltBlog;

beforeAll(async () => {
  // Jobs are only recorded: this file is about the API, not the renderer.
  t = await startTestApp({ jobHandler: async () => undefined });
  blog = await buildBlog(t, { plan: 'enterprise' });
});
afterAll(async () => {
  expectPrototypeClean();
  await t.close();
});

const send = (method: string, path: string, body: { raw: string; type: string }, extra: { blogId?: string } = {}) =>
  blog.actor.request(method, path, { raw: body.raw, headers: { 'content-type': body.type }, ...extra });

describe('hostile JSON', () => {
  it('POST /v1/posts never fails with 500 and stores only valid posts, one per 201', async () => {
    const before = countRows(t, 'posts');
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(postFields, wellTypedPost), async (body) => {
        const res = await send('POST', '/v1/posts', body, { blogId: blog.id });
        checkResponse(res, 201, `POST /v1/posts ${body.raw.slice(0, 200)}`);
        if (res.status === 201) created += 1;
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'posts') - before).toBe(created);
    expect(created).toBeGreaterThan(RUNS / 20);
    checkPostRows(t);
    expectPrototypeClean();
  });

  it('PUT /v1/posts/:slug never fails with 500 and leaves the post valid', async () => {
    let slug = (await buildPost(blog, { title: 'Target of PUT', slug: 'put-target' })).slug;
    const before = countRows(t, 'posts');
    await fc.assert(
      fc.asyncProperty(bodyFor(postFields, wellTypedPostUpdate), async (body) => {
        const res = await send('PUT', `/v1/posts/${encodeURIComponent(slug)}`, body, { blogId: blog.id });
        checkResponse(res, 200, `PUT /v1/posts/${slug} ${body.raw.slice(0, 200)}`);
        if (res.status === 200) slug = res.body.slug;
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'posts')).toBe(before);
    expect((await blog.actor.request('GET', `/v1/posts/${encodeURIComponent(slug)}`, { blogId: blog.id })).status).toBe(200);
    checkPostRows(t);
    expectPrototypeClean();
  });

  it('POST /v1/blogs never fails with 500 and stores only valid blogs, one per 201', async () => {
    const before = countRows(t, 'blogs');
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(blogFields, wellTypedBlog), async (body) => {
        const res = await send('POST', '/v1/blogs', body);
        checkResponse(res, 201, `POST /v1/blogs ${body.raw.slice(0, 200)}`);
        if (res.status === 201) created += 1;
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'blogs') - before).toBe(created);
    expect(created).toBeGreaterThan(RUNS / 20);
    checkBlogRows(t);
    expectPrototypeClean();
  });

  it('PUT /v1/blogs/:id never fails with 500 and leaves the blog valid', async () => {
    const target = await buildBlog(t, { actor: blog.actor, slug: uniqueSlug('put') });
    const before = countRows(t, 'blogs');
    await fc.assert(
      fc.asyncProperty(bodyFor(blogUpdateFields, wellTypedBlogUpdate), async (body) => {
        const res = await send('PUT', `/v1/blogs/${target.id}`, body);
        checkResponse(res, 200, `PUT /v1/blogs/:id ${body.raw.slice(0, 200)}`);
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'blogs')).toBe(before);
    const got = await blog.actor.request('GET', `/v1/blogs/${target.id}`);
    expect(got.status).toBe(200);
    expect(got.body.slug).toBe(target.slug);
    checkBlogRows(t);
    expectPrototypeClean();
  });

  it('POST /v1/blogs/:id/api-keys never fails with 500 and stores only valid keys, one per 201', async () => {
    const before = countRows(t, 'api_keys');
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(keyFields, wellTypedKey), async (body) => {
        const res = await send('POST', `/v1/blogs/${blog.id}/api-keys`, body);
        checkResponse(res, 201, `POST api-keys ${body.raw.slice(0, 200)}`);
        if (res.status === 201) {
          created += 1;
          expect(res.body.key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
        }
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'api_keys') - before).toBe(created);
    expect(created).toBeGreaterThan(RUNS / 20);
    checkKeyRows(t);
    expectPrototypeClean();
  });

  it('POST /v1/account/api-keys never fails with 500 and stores only valid account keys, one per 201', async () => {
    const before = countRows(t, 'api_keys');
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(keyFields, wellTypedKey), async (body) => {
        const res = await send('POST', '/v1/account/api-keys', body);
        checkResponse(res, 201, `POST account api-keys ${body.raw.slice(0, 200)}`);
        if (res.status === 201) {
          created += 1;
          expect(res.body.key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
          const row = t.folio.db.prepare('SELECT account_id, blog_id, scopes FROM api_keys WHERE id = ?').get(res.body.id);
          expect(row).toEqual({ account_id: blog.actor.accountId, blog_id: null, scopes: JSON.stringify(res.body.scopes) });
        }
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'api_keys') - before).toBe(created);
    expect(created).toBeGreaterThan(RUNS / 20);
    checkKeyRows(t);
    expectPrototypeClean();
  });

  it('POST /v1/blogs/:id/domain never fails with 500 and registers only valid hostnames', async () => {
    const target = await buildBlog(t, { actor: blog.actor, slug: uniqueSlug('dom') });
    let registered = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(domainFields, wellTypedDomain), async (body) => {
        const res = await send('POST', `/v1/blogs/${target.id}/domain`, body);
        checkResponse(res, 201, `POST domain ${body.raw.slice(0, 200)}`);
        if (res.status === 201) {
          registered += 1;
          expect(isValidHostname(res.body.hostname), res.body.hostname).toBe(true);
          expect(t.folio.repos.domains.findByBlog(target.id)?.hostname).toBe(res.body.hostname);
          expect((await blog.actor.request('DELETE', `/v1/blogs/${target.id}/domain`)).status).toBe(200);
        }
      }),
      { numRuns: RUNS },
    );
    expect(countRows(t, 'domains')).toBe(0);
    expect(registered).toBeGreaterThan(0);
    expectPrototypeClean();
  });
});

describe('hostile headers and queries', () => {
  it('GET /v1/posts with random query strings answers 200 or a 400, never 500', async () => {
    const param = fc.oneof(fc.constantFrom('status', 'tag', 'page', 'per_page', 'sort', 'order', '__proto__', 'constructor', 'page[]'), fc.string({ maxLength: 8 }));
    const value = fc.oneof(anyString.filter((s) => s.length < 200), fc.integer().map(String), fc.constantFrom('1', '100', '101', '0', '-1', '1e2', 'draft', 'asc'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, value), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const res = await blog.actor.request('GET', `/v1/posts?${query}`, { blogId: blog.id });
        checkResponse(res, 200, `GET /v1/posts?${query}`);
        if (res.status !== 200) expect(res.status).toBe(400);
      }),
      { numRuns: RUNS },
    );
    expectPrototypeClean();
  });

  it('random Authorization and X-Blog-Id headers answer 200, 400, 401 or 404, never 500', async () => {
    const printable = fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
    const auth = fc.oneof(printable, printable.map((s) => `Bearer ${s}`), printable.map((s) => `Bearer pk_live_${s}`), fc.constant(`Bearer ${blog.actor.key}`));
    const blogId = fc.oneof(printable, fc.uuid(), fc.constantFrom('', '__proto__', blog.id, ` ${blog.id} `));
    await fc.assert(
      fc.asyncProperty(fc.option(auth, { nil: undefined }), fc.option(blogId, { nil: undefined }), async (authorization, xBlogId) => {
        const headers: Record<string, string> = {};
        if (authorization !== undefined) headers.authorization = authorization;
        if (xBlogId !== undefined) headers['x-blog-id'] = xBlogId;
        const res = await t.request('GET', '/v1/posts', { key: null, headers });
        checkResponse(res, 200, `headers ${JSON.stringify(headers)}`);
        expect([200, 400, 401, 404]).toContain(res.status);
      }),
      { numRuns: RUNS },
    );
  });
});
