/**
 * The site server is a route too: it answers by Host header for `<slug>.localhost:<port>` and
 * active custom domains, and lets every other host through to the API. Hostile Host headers,
 * paths, methods and conditional headers over real HTTP against a really published blog:
 * a blog host answers 200, 301, 304, 404 or 405 (never JSON, never a 5xx); any other host gets
 * the API's JSON; the HTTP layer may refuse malformed requests with its JSON 400/431; nothing
 * is written to the database or the store.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../support/testApp.js';
import { captureLog } from '../support/capturedLog.js';
import { buildBlog, buildPost, uniqueSlug } from '../support/factories.js';
import { hostileBody, hostileRuns, hostileTimeout } from '../support/hostileArbitraries.js';
import { describeRequest, sendHostile, type HostileRequest, type HostileResponse } from '../support/hostileHttp.js';
import { checkDatabase, errorContractOf, expectApiAnswer, expectSoundAnswer, markWrites } from '../support/hostileChecks.js';
import { hostileHeaderValue, hostileQuery, hostileRequestId, hostileSegment, printable } from '../support/hostileRequestParts.js';
import { visit } from '../../bench/harness/visit.js';

const RUNS = hostileRuns(150);

const log = captureLog();
const t = await startTestApp({ logger: log.logger });
afterAll(async () => t.close());
const port = Number(new URL(t.baseUrl).port);
const contract = errorContractOf((await t.request('GET', '/v1/openapi.json', { key: null })).body);

// A really published blog: pages, a tag, a Korean post, a renamed post (a 301), a draft, and an
// active custom domain.
const blog = await buildBlog(t, { slug: uniqueSlug('site') });
await buildPost(blog, { title: 'Hello', slug: 'hello', tags: ['news'], status: 'published' });
await buildPost(blog, { title: '안녕 세상', status: 'published' });
await buildPost(blog, { title: 'Draft', slug: 'draft-post' });
await buildPost(blog, { title: 'Old', slug: 'old-name', status: 'published' });
expect((await blog.actor.request('PUT', '/v1/posts/old-name', { blogId: blog.id, body: { slug: 'new-name' } })).status).toBe(200);
const customHost = `${uniqueSlug('www')}.example.org`;
t.satisfyDomainChallenge((await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: customHost } })).body);
expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('active');
await t.folio.idle();

const blogHost = `${blog.slug}.localhost:3000`;
const home = await visit(t.baseUrl, blogHost, '/');
expect(home.status).toBe(200);
expect((await visit(t.baseUrl, customHost, '/hello')).status).toBe(200);
expect((await visit(t.baseUrl, blogHost, '/old-name')).status).toBe(301);
const homeEtag = String(home.headers.etag);

// ---------------------------------------------------------------------------------------------
// Hosts

/** `blog`: served by the site server; `api`: must fall through to the API; `any`: either. */
type HostKind = 'blog' | 'api' | 'any';
interface HostCase {
  /** null: no Host header at all. */
  host: string | null;
  kind: HostKind;
}

const slug = blog.slug;
const blogHosts = [
  blogHost,
  `${slug}.localhost`,
  `${slug.toUpperCase()}.LOCALHOST:3000`,
  `${slug}.localhost.`,
  `${slug}.localhost.:3000`,
  `${slug}.localhost:`,
  `${slug}.localhost:0`,
  `${slug}.localhost:99999`,
  ` ${slug}.localhost `,
  customHost,
  customHost.toUpperCase(),
  `${customHost}:443`,
  `${customHost}.`,
  // Subdomains of no blog are still the site server's: its plain 404.
  'xn--9l4b19k.localhost',
  `${'a'.repeat(63)}.localhost`,
  'no-such-blog.localhost:3000',
];
const apiHosts = [
  'localhost:3000',
  'localhost',
  `127.0.0.1:${port}`,
  '127.0.0.1',
  '[::1]:3000',
  '[::1]',
  '[fe80::1%25eth0]',
  `[${slug}.localhost]`,
  `x.${slug}.localhost`,
  `${slug}..localhost`,
  `.${slug}.localhost`,
  `-${slug}.localhost`,
  `${slug}-.localhost`,
  `${'a'.repeat(64)}.localhost`,
  `${slug}.localhost:abc`,
  `${slug}.localhost:3000:3000`,
  'unknown.example.com',
  'a..b',
  '..',
  '.',
  '',
  `${'a'.repeat(1_000)}.com`,
  'a.'.repeat(500),
  '블로그.localhost',
  `${slug}.ｌocalhost`,
  '_domains',
  '*.localhost',
  `a.b%2F..`,
  'a.b:80@evil.com',
  'user@a.b',
];
/**
 * Hosts that are no valid store key once `_domains/` is put before them: path characters, a
 * leading dot. The site server looks them up in the store, which refuses the key: a 500 (issue
 * item 4, being fixed elsewhere). Kept apart so the property below covers every other host.
 */
const storeKeyHosts: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'a.b/..',
    'a.b/../..',
    'a.b/',
    'a.b//x',
    'a.b/.meta',
    'a.b/./x',
    'a\\b.com',
    'a.b\\..',
    `${customHost}/..`,
    `${slug}.localhost/..`,
    'a.b/c',
    '.a.com',
    '..a.com',
    '.;',
    ' .example.org',
    '.meta.example.org',
  ),
  fc.tuple(printable, printable).map(([a, b]) => `${a}.x/${b}`),
  printable.map((a) => `.${a}.x`),
);
/** Random hosts for the main property: everything but the store-key class above. */
const notStoreKey = (host: string): boolean => !/[/\\]/.test(host) && !host.trim().startsWith('.');

const hostCaseArb: fc.Arbitrary<HostCase> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...blogHosts).map((host): HostCase => ({ host, kind: 'blog' })) },
  { weight: 4, arbitrary: fc.constantFrom(...apiHosts).map((host): HostCase => ({ host, kind: 'api' })) },
  { weight: 1, arbitrary: fc.constant<HostCase>({ host: null, kind: 'api' }) },
  {
    weight: 1,
    arbitrary: fc
      .domain()
      .filter(notStoreKey)
      .map((host): HostCase => ({ host, kind: 'any' })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(printable, hostileHeaderValue)
      .filter(notStoreKey)
      .map((host): HostCase => ({ host, kind: 'any' })),
  },
);

// ---------------------------------------------------------------------------------------------
// Requests

const knownPath = fc.constantFrom(
  '/',
  '/',
  '/hello',
  '/hello',
  '/rss.xml',
  '/hello/',
  '/HELLO',
  '/old-name',
  '/old-name/',
  '/new-name',
  `/${encodeURIComponent('안녕-세상')}`,
  '/tags/news/',
  '/tags/news',
  '/page/2/',
  '/page/0/',
  '/rss.xml',
  '/feed.json',
  '/sitemap.xml',
  '/robots.txt',
  '/llms.txt',
  '/404.html',
  '/index.html',
  '/_search/',
  '/_search/manifest.json',
  '/.meta/index.html.json',
  '/draft-post',
  // The view beacon (docs/analytics.md): known, unknown and draft slugs, and stray queries.
  '/_folio/view.gif',
  '/_folio/view.gif?p=hello',
  '/_folio/view.gif?p=draft-post',
  '/_folio/view.gif?p=hello&p=new-name',
  '/_folio/view.gif?q=1',
  '/_folio/view.gif/',
  '/_folio/',
  '/hello/index.html',
  '//hello',
  '/hello//',
  '*',
  'http://other.example/hello',
);
const pathArb = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: knownPath },
      { weight: 3, arbitrary: fc.array(hostileSegment, { minLength: 1, maxLength: 3 }).map((segments) => `/${segments.join('/')}`) },
    ),
    fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: hostileQuery([], []) }),
  )
  .map(([path, query]) => `${path}${query}`);

interface SitePlan {
  host: HostCase;
  /** A second Host header (Node keeps the first). */
  secondHost: string | null;
  method: string;
  target: string;
  /** null: none; 'etag': the home page's current ETag. */
  ifNoneMatch: string | null;
  extra: [string, string][];
  requestId: string | null;
  body: Buffer | undefined;
}

function hostileSitePlanArb(hosts: fc.Arbitrary<HostCase>): fc.Arbitrary<SitePlan> {
  return fc.record({
    host: hosts,
    secondHost: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('localhost:3000', blogHost, 'evil.example') }),
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'HEAD') },
      { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
    ),
    target: pathArb,
    ifNoneMatch: fc.oneof(
      { weight: 4, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constant('etag') },
      { weight: 2, arbitrary: fc.constantFrom('*', 'W/"x"', '"x", *', '') },
      { weight: 1, arbitrary: printable },
    ),
    extra: fc.oneof(
      { weight: 4, arbitrary: fc.constant<[string, string][]>([]) },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.tuple(
            fc.constantFrom(
              'If-Modified-Since',
              'Range',
              'Accept-Encoding',
              'Accept',
              'Authorization',
              'X-Blog-Id',
              'Cookie',
              'X-Forwarded-Host',
              'Content-Type',
            ),
            hostileHeaderValue,
          ),
          { minLength: 1, maxLength: 2 },
        ),
      },
    ),
    requestId: fc.option(hostileRequestId, { nil: null, freq: 4 }),
    body: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileBody(undefined) }),
  });
}

/**
 * A visit of one of the blog's pages on one of its hosts, hostile in one or two parts: pages,
 * redirects and revalidation are reached as often as refusals.
 */
function mostlySaneSitePlanArb(hosts: fc.Arbitrary<HostCase>): fc.Arbitrary<SitePlan> {
  const sane = fc.record({
    host: fc.constantFrom(...blogHosts).map((host): HostCase => ({ host, kind: 'blog' })),
    secondHost: fc.constant(null),
    method: fc.constantFrom('GET', 'HEAD'),
    target: fc.constantFrom(
      '/',
      '/hello',
      '/hello/',
      '/old-name',
      '/old-name',
      '/rss.xml',
      '/tags/news/',
      `/${encodeURIComponent('안녕-세상')}`,
      '/sitemap.xml',
    ),
    ifNoneMatch: fc.constantFrom(null, null, '*', 'etag'),
    extra: fc.constant<[string, string][]>([]),
    requestId: fc.constant(null),
    body: fc.constant(undefined),
  });
  const parts = ['host', 'secondHost', 'method', 'target', 'ifNoneMatch', 'extra', 'requestId', 'body'] as const;
  return fc
    .tuple(sane, hostileSitePlanArb(hosts), fc.subarray([...parts], { minLength: 0, maxLength: 2 }))
    .map(([base, hostile, swapped]) => ({ ...base, ...Object.fromEntries(swapped.map((part) => [part, hostile[part]])) }) as SitePlan);
}

/** Plans printed as the request they make, when fast-check reports a counterexample. */
const printed = (plans: fc.Arbitrary<SitePlan>): fc.Arbitrary<SitePlan> =>
  plans.map((plan) => Object.assign(plan, { [fc.toStringMethod]: () => describeRequest(toRequest(plan)) }));

function sitePlanArb(hosts: fc.Arbitrary<HostCase>): fc.Arbitrary<SitePlan> {
  return printed(fc.oneof(hostileSitePlanArb(hosts), mostlySaneSitePlanArb(hosts)));
}

function toRequest(plan: SitePlan): HostileRequest {
  const headers: [string, string][] = [];
  if (plan.host.host !== null) headers.push(['Host', plan.host.host]);
  if (plan.host.host !== null && plan.secondHost !== null) headers.push(['Host', plan.secondHost]);
  if (plan.ifNoneMatch !== null) headers.push(['If-None-Match', plan.ifNoneMatch === 'etag' ? homeEtag : plan.ifNoneMatch]);
  if (plan.requestId !== null) headers.push(['X-Request-Id', plan.requestId]);
  headers.push(...plan.extra);
  if (plan.body !== undefined) headers.push(['Content-Type', 'application/json']);
  return { method: plan.method, target: plan.target, headers, ...(plan.body !== undefined ? { body: plan.body } : {}) };
}

const SITE_STATUSES = [200, 301, 304, 404, 405];

function isParserRefusal(res: HostileResponse): boolean {
  const body = res.json as { error?: unknown; message?: unknown } | undefined;
  return body?.error === 'headers_too_large' || (typeof body?.message === 'string' && body.message.startsWith('malformed HTTP request'));
}

/** Answers by host kind and status, to show the property reaches every kind of answer. */
const seen = new Map<string, number>();

async function visitSite(plan: SitePlan): Promise<void> {
  const request = toRequest(plan);
  const res = await sendHostile(port, request);
  const tally = `${plan.host.kind} ${res.status}`;
  seen.set(tally, (seen.get(tally) ?? 0) + 1);
  const logged = log.linesFor(res.headers['x-request-id']).join('\n');
  const where = `${describeRequest(request)}\n→ ${res.status} ${JSON.stringify(res.headers)} ${res.text.slice(0, 200)}${logged ? `\nserver log: ${logged.slice(0, 3000)}` : ''}`;
  expectSoundAnswer(res, where, plan.requestId ?? undefined);
  const json = /^application\/json/.test(res.headers['content-type'] ?? '');
  if (json || plan.host.kind === 'api') {
    expectApiAnswer(res, where, contract);
    if (plan.host.kind === 'blog') expect(isParserRefusal(res), `${where}: a blog host answered by the API`).toBe(true);
    return;
  }
  expect(SITE_STATUSES, where).toContain(res.status);
  if (res.status === 405) expect(res.headers.allow, where).toBe('GET, HEAD');
  else expect(['GET', 'HEAD'], `${where}: only GET and HEAD are served`).toContain(plan.method);
  if (res.status === 301) expect(res.headers.location ?? '', where).toMatch(/^(https?:\/\/|\/)/);
  if (res.status === 304) expect(plan.ifNoneMatch, `${where}: 304 without If-None-Match`).not.toBeNull();
  if (res.status === 200 && plan.target.split('?')[0] === '/_folio/view.gif') {
    // The beacon: an image no cache keeps, never a cookie, whatever its query.
    expect(res.headers['content-type'], where).toBe('image/gif');
    expect(res.headers['cache-control'], where).toBe('no-store');
    expect(res.headers['set-cookie'], where).toBeUndefined();
  } else if (res.status === 200) expect(res.headers.etag ?? '', where).toMatch(/^"/);
}

/** Database rows and every stored object, to show nothing was written. */
async function snapshot(): Promise<{ changes: number; objects: string }> {
  const keys = [...(await t.folio.store.list(`${blog.slug}/`)), ...(await t.folio.store.list('_domains/'))].sort();
  const etags = await Promise.all(keys.map(async (key) => `${key} ${(await t.folio.store.get(key))?.etag ?? 'gone'}`));
  return { changes: (await markWrites(t)).changes, objects: etags.join('\n') };
}

describe('the site server', () => {
  it(
    'answers hostile hosts, paths, methods and conditional headers without a 5xx, writing nothing',
    async () => {
      const before = await snapshot();
      await fc.assert(fc.asyncProperty(sitePlanArb(hostCaseArb), visitSite), { numRuns: RUNS });
      expect(await snapshot()).toEqual(before);
      await checkDatabase(t);
      // Pages, redirects, revalidation, refused methods and the API behind other hosts were all reached.
      for (const tally of ['blog 200', 'blog 301', 'blog 304', 'blog 404', 'blog 405', 'api 404'])
        expect(seen.get(tally) ?? 0, `${tally}: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
      if (process.env.HOSTILE_VERBOSE) console.log(JSON.stringify(Object.fromEntries([...seen].sort())));
    },
    hostileTimeout(RUNS),
  );

  // Expected to fail until the fix of issue item 4 is merged (a Host with `/`, `\` or a leading
  // dot reaches the store as a `_domains/<host>` key the store refuses: 500); then this is `it`.
  it(
    'answers hosts that are no valid store key (`a.b/..`, `.a.com`) like any unknown host, never 500',
    async () => {
      const hosts = storeKeyHosts.map((host): HostCase => ({ host, kind: 'api' }));
      await fc.assert(fc.asyncProperty(printed(hostileSitePlanArb(hosts)), visitSite), { numRuns: Math.max(20, Math.round(RUNS / 5)) });
    },
    hostileTimeout(RUNS),
  );
});
