/**
 * Random and hostile JSON thrown at every write endpoint: whatever arrives, the answer is never a
 * 500, every 4xx is `{error, message}`, nothing invalid is stored, and rows only grow by the
 * number of 201s. Bodies are serialised by hand so that keys like `__proto__` reach the server.
 * Every route's path parameters, queries and headers: routes.property.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { signIn } from '../support/dashboardSession.js';
import { buildBlog, buildPost, countRows, uniqueSlug, type BuiltBlog } from '../support/factories.js';
import { GRANTABLE_SCOPES } from '../../src/services/authContext.js';
import {
  anyString,
  bodyFor,
  defined,
  hostileRuns,
  hostileTimeout,
  jsonValue,
  nastyString,
  objectOf,
  optional,
  slugText,
  text,
  type Entries,
} from '../support/hostileArbitraries.js';
import {
  checkBlogRows,
  checkKeyRows,
  checkPostRows,
  checkResponse,
  checkRevisionRows,
  expectPrototypeClean,
  isValidHostname,
} from '../support/hostileChecks.js';
import { printable } from '../support/hostileRequestParts.js';

/** Runs per property; raise with HOSTILE_RUNS=2000 for a deeper local search. */
const RUNS = hostileRuns(150);
// Each accepted password costs a scrypt hash (tens of milliseconds): fewer runs.
const PASSWORD_RUNS = hostileRuns(40);

// ---------------------------------------------------------------------------------------------
// Arbitraries of each write endpoint's body (the generic ones are in test/support/hostileArbitraries.ts)

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
    tags: optional(
      fc.array(fc.oneof({ weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }) }, { weight: 1, arbitrary: text(60) }), {
        maxLength: 11,
      }),
    ),
    status: optional(fc.constantFrom('draft', 'published', 'published', 'scheduled')),
    meta: optional(
      fc
        .record({ description: optional(fc.oneof(text(300), fc.constant(null))), og_image: optional(fc.oneof(fc.webUrl(), text(50), fc.constant(null))) })
        .map(defined),
    ),
  })
  .map(defined);
const wellTypedPostUpdate = wellTypedPost.chain((post) =>
  fc.subarray(Object.keys(post), { minLength: 1 }).map((keys) => Object.fromEntries(keys.map((k) => [k, post[k]]))),
);

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
  .record({
    slug: fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/) }, { weight: 1, arbitrary: slugText }),
    name: text(200),
    description: optional(text(1000)),
  })
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

// Around the test clock's now (2026-03-24T10:00Z) and the ten-year bound, with and without a zone.
const keyExpiry = fc.oneof(
  fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc
    .date({ min: new Date('2026-03-25T00:00:00Z'), max: new Date('2036-03-23T00:00:00Z'), noInvalidDate: true })
    .map((d) => `${d.toISOString().slice(0, 19)}+09:00`),
  fc.constantFrom(null, '2027-01-01T00:00:00', '2027-02-30T00:00:00Z', '9999-12-31T23:59:59Z', '+275760-09-13T00:00:00Z', '2027-01-01T00:00:00+24:00'),
);
const keyFields = {
  name: anyString,
  scopes: fc.oneof(fc.subarray([...GRANTABLE_SCOPES]), fc.array(anyString, { maxLength: 4 }), jsonValue),
  expires_at: fc.oneof(keyExpiry, anyString, jsonValue),
};
const wellTypedKey = fc
  .record({ name: optional(text(100)), scopes: optional(fc.subarray([...GRANTABLE_SCOPES], { minLength: 1 })), expires_at: optional(keyExpiry) })
  .map(defined);

const passwordFields = { current_password: fc.oneof(anyString, jsonValue), new_password: fc.oneof(anyString, jsonValue) };
const wellTypedPassword = fc.record({ new_password: fc.string({ minLength: 10, maxLength: 40 }) });

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
  it(
    'POST /v1/posts never fails with 500 and stores only valid posts, one per 201',
    async () => {
      const before = await countRows(t, 'posts');
      let created = 0;
      await fc.assert(
        fc.asyncProperty(bodyFor(postFields, wellTypedPost), async (body) => {
          const res = await send('POST', '/v1/posts', body, { blogId: blog.id });
          checkResponse(res, 201, `POST /v1/posts ${body.raw.slice(0, 200)}`);
          if (res.status === 201) created += 1;
        }),
        { numRuns: RUNS },
      );
      expect((await countRows(t, 'posts')) - before).toBe(created);
      expect(created).toBeGreaterThan(RUNS / 20);
      await checkPostRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'PUT /v1/posts/:slug never fails with 500 and leaves the post valid',
    async () => {
      let slug = (await buildPost(blog, { title: 'Target of PUT', slug: 'put-target' })).slug;
      const before = await countRows(t, 'posts');
      await fc.assert(
        fc.asyncProperty(bodyFor(postFields, wellTypedPostUpdate), async (body) => {
          const res = await send('PUT', `/v1/posts/${encodeURIComponent(slug)}`, body, { blogId: blog.id });
          checkResponse(res, 200, `PUT /v1/posts/${slug} ${body.raw.slice(0, 200)}`);
          if (res.status === 200) slug = res.body.slug;
        }),
        { numRuns: RUNS },
      );
      expect(await countRows(t, 'posts')).toBe(before);
      expect((await blog.actor.request('GET', `/v1/posts/${encodeURIComponent(slug)}`, { blogId: blog.id })).status).toBe(200);
      await checkPostRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    "restoring any revision of a post edited by hostile PUTs gives back that revision's title and text",
    async () => {
      let slug = (await buildPost(blog, { title: 'Target of restores', slug: 'restore-target' })).slug;
      // The clock moves on here; it goes back afterwards, as the key expiry arbitraries count from it.
      const start = t.clock.now();
      await fc.assert(
        fc.asyncProperty(bodyFor(postFields, wellTypedPostUpdate), async (body) => {
          // Past the coalescing window: every accepted change of the text is a revision of its own.
          t.clock.advance(6 * 60_000);
          const res = await send('PUT', `/v1/posts/${encodeURIComponent(slug)}`, body, { blogId: blog.id });
          checkResponse(res, 200, `PUT /v1/posts/${slug} ${body.raw.slice(0, 200)}`);
          if (res.status === 200) slug = res.body.slug;
        }),
        { numRuns: Math.ceil(RUNS / 3) },
      );
      await checkRevisionRows(t);
      const path = (suffix: string) => `/v1/posts/${encodeURIComponent(slug)}${suffix}`;
      const listed = (await blog.actor.request('GET', path('/revisions?per_page=100'), { blogId: blog.id })).body.data as { id: string }[];
      for (const { id } of listed.slice(0, 10)) {
        const revision = (await blog.actor.request('GET', path(`/revisions/${id}`), { blogId: blog.id })).body;
        t.clock.advance(6 * 60_000);
        const restored = await blog.actor.request('POST', path(`/revisions/${id}/restore`), { blogId: blog.id });
        checkResponse(restored, 200, `restore ${id}`);
        expect(restored.status, restored.text).toBe(200);
        const post = (await blog.actor.request('GET', path(''), { blogId: blog.id })).body;
        expect({ title: post.title, content_md: post.content_md }).toEqual({ title: revision.title, content_md: revision.content_md });
      }
      t.clock.set(start);
      await checkPostRows(t);
      await checkRevisionRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'GET /v1/posts/:slug/revisions with random query strings answers 200 or a 400, never 500',
    async () => {
      await buildPost(blog, { title: 'Listed', slug: 'revisions-listed' });
      const param = fc.oneof(fc.constantFrom('page', 'per_page', '__proto__', 'constructor', 'page[]', 'sort'), fc.string({ maxLength: 8 }));
      const value = fc.oneof(
        anyString.filter((s) => s.length < 200),
        fc.integer().map(String),
        fc.constantFrom('1', '100', '101', '0', '-1', '1e2'),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(param, value), { maxLength: 4 }), async (pairs) => {
          const query = new URLSearchParams(pairs).toString();
          const res = await blog.actor.request('GET', `/v1/posts/revisions-listed/revisions?${query}`, { blogId: blog.id });
          checkResponse(res, 200, `GET revisions?${query}`);
          if (res.status !== 200) expect(res.status).toBe(400);
        }),
        { numRuns: RUNS },
      );
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'POST /v1/blogs never fails with 500 and stores only valid blogs, one per 201',
    async () => {
      const before = await countRows(t, 'blogs');
      let created = 0;
      await fc.assert(
        fc.asyncProperty(bodyFor(blogFields, wellTypedBlog), async (body) => {
          const res = await send('POST', '/v1/blogs', body);
          checkResponse(res, 201, `POST /v1/blogs ${body.raw.slice(0, 200)}`);
          if (res.status === 201) created += 1;
        }),
        { numRuns: RUNS },
      );
      expect((await countRows(t, 'blogs')) - before).toBe(created);
      expect(created).toBeGreaterThan(RUNS / 20);
      await checkBlogRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'PUT /v1/blogs/:id never fails with 500 and leaves the blog valid',
    async () => {
      const target = await buildBlog(t, { actor: blog.actor, slug: uniqueSlug('put') });
      const before = await countRows(t, 'blogs');
      await fc.assert(
        fc.asyncProperty(bodyFor(blogUpdateFields, wellTypedBlogUpdate), async (body) => {
          const res = await send('PUT', `/v1/blogs/${target.id}`, body);
          checkResponse(res, 200, `PUT /v1/blogs/:id ${body.raw.slice(0, 200)}`);
        }),
        { numRuns: RUNS },
      );
      expect(await countRows(t, 'blogs')).toBe(before);
      const got = await blog.actor.request('GET', `/v1/blogs/${target.id}`);
      expect(got.status).toBe(200);
      expect(got.body.slug).toBe(target.slug);
      await checkBlogRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'POST /v1/blogs/:id/api-keys never fails with 500 and stores only valid keys, one per 201',
    async () => {
      const before = await countRows(t, 'api_keys');
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
      expect((await countRows(t, 'api_keys')) - before).toBe(created);
      expect(created).toBeGreaterThan(RUNS / 20);
      await checkKeyRows(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'PUT /v1/account/password from a dashboard session never fails with 500 and stores a scrypt hash only on 200',
    async () => {
      const person = await t.createAccount('creator');
      await t.folio.sql.run('UPDATE accounts SET email = ? WHERE id = ?', [`hostile-${process.pid}@example.com`, person.accountId]);
      const session = await signIn(t, person.accountId);
      const stored = async () =>
        (await t.folio.sql.get<{ password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = ?', [person.accountId]))!.password_hash;
      let changed = 0;
      await fc.assert(
        fc.asyncProperty(bodyFor(passwordFields, wellTypedPassword), async (body) => {
          const res = await t.request('PUT', '/v1/account/password', {
            key: null,
            raw: body.raw,
            headers: { ...session.writeHeaders(), 'content-type': body.type },
          });
          checkResponse(res, 200, `PUT /v1/account/password ${body.raw.slice(0, 200)}`);
          if (res.status === 200) {
            changed += 1;
            expect(await stored()).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
            // Back to no password, so the next well-typed body needs no current one.
            await t.folio.sql.run('UPDATE accounts SET password_hash = NULL WHERE id = ?', [person.accountId]);
          } else expect(await stored()).toBeNull();
        }),
        { numRuns: PASSWORD_RUNS },
      );
      expect(changed).toBeGreaterThan(0);
      expectPrototypeClean();
    },
    hostileTimeout(PASSWORD_RUNS, 1000),
  );

  it('POST /v1/account/api-keys never fails with 500 and stores only valid account keys, one per 201', async () => {
    const before = await countRows(t, 'api_keys');
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyFor(keyFields, wellTypedKey), async (body) => {
        const res = await send('POST', '/v1/account/api-keys', body);
        checkResponse(res, 201, `POST account api-keys ${body.raw.slice(0, 200)}`);
        if (res.status === 201) {
          created += 1;
          expect(res.body.key).toMatch(/^pk_live_[A-Za-z0-9_-]{32,}$/);
          const row = await t.folio.sql.get('SELECT account_id, blog_id, scopes FROM api_keys WHERE id = ?', [res.body.id]);
          expect(row).toEqual({ account_id: blog.actor.accountId, blog_id: null, scopes: JSON.stringify(res.body.scopes) });
        }
      }),
      { numRuns: RUNS },
    );
    expect((await countRows(t, 'api_keys')) - before).toBe(created);
    expect(created).toBeGreaterThan(RUNS / 20);
    await checkKeyRows(t);
    expectPrototypeClean();
  });

  it(
    'POST /v1/blogs/:id/domain never fails with 500 and registers only valid hostnames',
    async () => {
      const target = await buildBlog(t, { actor: blog.actor, slug: uniqueSlug('dom') });
      let registered = 0;
      await fc.assert(
        fc.asyncProperty(bodyFor(domainFields, wellTypedDomain), async (body) => {
          const res = await send('POST', `/v1/blogs/${target.id}/domain`, body);
          checkResponse(res, 201, `POST domain ${body.raw.slice(0, 200)}`);
          if (res.status === 201) {
            registered += 1;
            expect(isValidHostname(res.body.hostname), res.body.hostname).toBe(true);
            expect((await t.folio.repos.domains.findByBlog(target.id))?.hostname).toBe(res.body.hostname);
            expect((await blog.actor.request('DELETE', `/v1/blogs/${target.id}/domain`)).status).toBe(200);
          }
        }),
        { numRuns: RUNS },
      );
      expect(await countRows(t, 'domains')).toBe(0);
      expect(registered).toBeGreaterThan(0);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );
  it(
    'POST /v1/preview never fails with 500, writes nothing and answers only sanitised HTML',
    async () => {
      const rows = () => t.folio.sql.get('SELECT (SELECT COUNT(*) FROM posts) + (SELECT COUNT(*) FROM preview_links) + (SELECT COUNT(*) FROM media) AS n');
      const before = await rows();
      const markdown = fc.oneof(
        text(5000),
        fc.constantFrom('<script>alert(1)</script>', '<img src=x onerror=alert(1)> [x](javascript:alert(1))', '```js\nlet a = 1;\n```'),
      );
      await fc.assert(
        fc.asyncProperty(bodyFor({ content_md: fc.oneof(anyString, markdown) }, fc.record({ content_md: markdown })), async (body) => {
          const res = await send('POST', '/v1/preview', body, { blogId: blog.id });
          checkResponse(res, 200, `POST /v1/preview ${body.raw.slice(0, 200)}`);
          if (res.status === 200) {
            expect(Object.keys(res.body).sort()).toEqual(['base_url', 'html']);
            expect(res.body.html).not.toMatch(/<script|\sonerror=|href="javascript:/i);
          }
        }),
        { numRuns: RUNS },
      );
      expect(await rows()).toEqual(before);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );

  it(
    'POST /v1/posts/:slug/preview-link never fails with 500 and stores one link per 201, expiring within bounds',
    async () => {
      const slug = (await buildPost(blog, { title: 'Target of preview links', slug: 'preview-target' })).slug;
      const count = async () => (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM preview_links'))!.n;
      const before = await count();
      let created = 0;
      const seconds = fc.oneof(fc.integer({ min: 60, max: 30 * 86_400 }), fc.integer(), fc.double(), anyString, jsonValue);
      await fc.assert(
        fc.asyncProperty(
          bodyFor({ expires_in: seconds }, fc.record({ expires_in: optional(fc.integer({ min: 60, max: 30 * 86_400 })) }).map(defined)),
          async (body) => {
            const res = await send('POST', `/v1/posts/${slug}/preview-link`, body, { blogId: blog.id });
            checkResponse(res, 201, `POST preview-link ${body.raw.slice(0, 200)}`);
            if (res.status === 201) {
              created += 1;
              expect(res.body.url).toMatch(/\/preview\/[A-Za-z0-9_-]{43}$/);
              const lasts = Date.parse(res.body.expires_at) - t.clock.now().getTime();
              expect(lasts).toBeGreaterThanOrEqual(60_000);
              expect(lasts).toBeLessThanOrEqual(30 * 86_400_000);
            }
          },
        ),
        { numRuns: RUNS },
      );
      expect((await count()) - before).toBe(created);
      expect(created).toBeGreaterThan(RUNS / 20);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );
});

describe('hostile headers and queries', () => {
  it(
    'GET /v1/posts with random query strings answers 200 or a 400, never 500',
    async () => {
      const param = fc.oneof(
        fc.constantFrom('status', 'tag', 'page', 'per_page', 'sort', 'order', '__proto__', 'constructor', 'page[]'),
        fc.string({ maxLength: 8 }),
      );
      const value = fc.oneof(
        anyString.filter((s) => s.length < 200),
        fc.integer().map(String),
        fc.constantFrom('1', '100', '101', '0', '-1', '1e2', 'draft', 'asc'),
      );
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
    },
    hostileTimeout(RUNS),
  );

  it(
    'random Authorization and X-Blog-Id headers answer 200, 400, 401 or 404, never 500',
    async () => {
      const auth = fc.oneof(
        printable,
        printable.map((s) => `Bearer ${s}`),
        printable.map((s) => `Bearer pk_live_${s}`),
        fc.constant(`Bearer ${blog.actor.key}`),
      );
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
    },
    hostileTimeout(RUNS),
  );
});
