/**
 * Every route of the API receives hostile path parameters, query strings, headers and bodies
 * over real HTTP (written byte by byte, test/support/hostileHttp.ts). The routes are read from
 * the app's own Koa router and described by its GET /v1/openapi.json, so a new route is fuzzed
 * with its own parameters and body schema without a change here, and the last test fails when
 * a route the router serves was not fuzzed.
 *
 * Whatever arrives: an answer, never a 5xx, never a stack; errors are the `{error, message}` of
 * decisions.md; a request without a live key never succeeds, nor one naming another account's
 * blog or key; a refused request writes nothing, a 201 adds exactly one row; and the database
 * stays consistent and within the documented limits.
 *
 * The bodies of the write endpoints get deeper, endpoint-specific fuzzing in
 * hostile.property.test.ts; site hosts in siteServer.property.test.ts.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../support/testApp.js';
import { image, pngHeaderOnly } from '../support/images.js';
import { captureLog } from '../support/capturedLog.js';
import { hostileBody, hostileRuns, hostileTimeout, objectForSchema, serialise, type FieldHints } from '../support/hostileArbitraries.js';
import { describeRequest, sendHostile, type HostileRequest, type HostileResponse } from '../support/hostileHttp.js';
import {
  checkDatabase,
  errorContractOf,
  expectApiAnswer,
  expectPrototypeClean,
  expectSoundAnswer,
  expectWritesMatch,
  markWrites,
} from '../support/hostileChecks.js';
import {
  hostileContentType,
  hostileHeaderValue,
  hostileQuery,
  hostileRequestId,
  hostileSegment,
  printable,
  refsOf,
  resolveTemplate,
  type Template,
} from '../support/hostileRequestParts.js';
import { appOperations, matchOperation, routerOf, type Operation } from '../support/appOperations.js';
import { LIVE_KEYS, OWNER_OF, PARAM_FIXTURES, RouteFixtures, type PostState } from '../support/routeFixtures.js';

/** Runs per route; HOSTILE_RUNS overrides it (and every other property's count). */
const RUNS = hostileRuns(40);

const log = captureLog();
// Jobs are only recorded: this file is about the API, not the renderer.
// Webhook URLs on loopback are allowed so that creations succeed; the one they name (port 9)
// refuses connections at once, so deliveries fail fast and never leave the machine.
const t = await startTestApp({ jobHandler: async () => undefined, logger: log.logger, env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
afterAll(async () => {
  expectPrototypeClean();
  await t.close();
});
const port = Number(new URL(t.baseUrl).port);
const openapi = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
const contract = errorContractOf(openapi);

const router = routerOf(t.folio.app);
const operations = appOperations(router, openapi);
const fixtures = await RouteFixtures.create(t);

// ---------------------------------------------------------------------------------------------
// Requests

interface Auth {
  template: Template;
  /** A live key in a form authenticate accepts. */
  valid: boolean;
}

const ref = (name: string) => ({ ref: name });

const authArb: fc.Arbitrary<Auth | null> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 10, arbitrary: fc.constantFrom(...LIVE_KEYS).map((k): Auth => ({ template: ['Bearer ', ref(k)], valid: true })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('bearer ', 'BEARER ', 'Bearer  ', 'Bearer\t'), fc.constantFrom(...LIVE_KEYS), fc.constantFrom('', ' ', '\t'))
      .map(([scheme, k, tail]): Auth => ({ template: [scheme, ref(k), tail], valid: true })),
  },
  {
    weight: 5,
    arbitrary: fc
      .oneof(
        fc.constantFrom<Template>(
          ['Bearer ', ref('revokedKey')],
          [ref('accountKey')],
          ['Basic ', ref('accountKey')],
          ['Bearer ', ref('accountKey'), 'x'],
          ['Bearer ', ref('accountKey'), ' extra'],
          ['Bearer ', ref('accountKey'), ',Bearer ', ref('otherAccountKey')],
          ['Bearer'],
          ['Bearer '],
          [''],
          ['Bearer pk_live_'],
          [`Bearer pk_live_${'A'.repeat(43)}`],
          ['Basic dXNlcjpwYXNz'],
          ['Token pk_live_x'],
          [`Bearer pk_live_${'a'.repeat(8_000)}`],
          [`Bearer pk_live_${'a'.repeat(20_000)}`],
        ),
        printable.map((s): Template => [s]),
        printable.map((s): Template => [`Bearer ${s}`]),
        printable.map((s): Template => [`Bearer pk_live_${s}`]),
        hostileHeaderValue.map((s): Template => [`Bearer ${s}`]),
      )
      .map((template): Auth => ({ template, valid: false })),
  },
);

/** X-Blog-Id: own, foreign and the free account's blog, padded, garbage, very long. */
const blogIdArb: fc.Arbitrary<Template | null> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: fc.constantFrom('blogId', 'otherBlogId', 'freeBlogId').map((r): Template => [ref(r)]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Template>(
      [' ', ref('blogId'), ' '],
      [ref('blogId'), 'x'],
      [ref('blogId'), ',', ref('otherBlogId')],
      ['__proto__'],
      [''],
      ['x'.repeat(5_000)],
    ),
  },
  { weight: 1, arbitrary: fc.uuid().map((u): Template => [u]) },
  { weight: 2, arbitrary: hostileHeaderValue.map((s): Template => [s]) },
);

const contentEncodingArb = fc.oneof(
  { weight: 20, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip', 'GZIP') },
);

const EXTRA_HEADERS = [
  'Accept',
  'Accept-Language',
  'Cookie',
  'Origin',
  'Referer',
  'User-Agent',
  'X-Forwarded-For',
  'X-Forwarded-Host',
  'X-Forwarded-Proto',
  'X-HTTP-Method-Override',
  'If-None-Match',
  'If-Modified-Since',
  'Range',
  'Expect',
  'X-Blog-Id',
  'Authorization',
] as const;
const extraHeadersArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<[string, string][]>([]) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.tuple(
        fc.constantFrom<string>(...EXTRA_HEADERS),
        fc.oneof(hostileHeaderValue, fc.constantFrom('100-continue', '*', 'bytes=0-1', 'DELETE', 'text/html')),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  },
);

/** Fields whose schema cannot tell a likely valid value: without these, no domain is ever registered. */
const FIELD_HINTS: FieldHints = {
  hostname: fc.oneof(fc.domain(), fc.stringMatching(/^[a-z0-9]{1,10}(\.[a-z0-9]{1,10}){1,3}$/)),
  url: fc.constantFrom('http://127.0.0.1:9/hook', 'http://127.0.0.1:9/other?x=1'),
  // The test clock stands at 2026-03-24.
  scheduled_at: fc.date({ min: new Date('2026-03-25T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  // A key's expiry: null (never), or within the ten years the API allows, and some past them.
  expires_at: fc.oneof(
    fc.constant(null),
    fc.date({ min: new Date('2026-03-25T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  ),
};

interface Plan {
  /** State the fixture post is put in before the request (transitions depend on it). */
  postState: PostState;
  /** Whether the fixture blog has a (pending) custom domain before the request. */
  hasDomain: boolean;
  method: string;
  /** Path parameters in the order of the route's path. */
  params: Template[];
  query: string;
  auth: Auth | null;
  blogId: Template | null;
  contentType: string | null;
  contentEncoding: string | null;
  requestId: string | null;
  extra: [string, string][];
  body: Buffer | undefined;
}

function paramArb(name: string): fc.Arbitrary<Template> {
  const named = PARAM_FIXTURES[name] ?? [];
  return fc.oneof(
    ...(named.length > 0 ? [{ weight: 6, arbitrary: fc.constantFrom(...named).map((r): Template => [ref(r)]) }] : []),
    { weight: 1, arbitrary: fc.uuid().map((u): Template => [u]) },
    { weight: 4, arbitrary: hostileSegment.map((s): Template => [s]) },
  );
}

const postStateArb = fc.constantFrom<PostState>('draft', 'published', 'scheduled');

/** Upload bodies (POST /v1/media): real small images of several sizes, and what is not an image. */
const uploadImages = await Promise.all([8, 9, 10, 11].map((side) => image('png', side, side)));
const saneUploadArb = fc.constantFrom(...uploadImages);
const uploadBodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  saneUploadArb,
  fc.constant(undefined),
  fc.constant(Buffer.alloc(0)),
  fc.constant(uploadImages[0]!.subarray(0, 40)),
  fc.uint8Array({ maxLength: 4_000 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')),
  fc.constant(pngHeaderOnly(50_000, 50_000)),
);

/** Every part of the request hostile at once. */
function hostilePlanArb(op: Operation): fc.Arbitrary<Plan> {
  const otherMethods = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
  return fc.record({
    postState: postStateArb,
    hasDomain: fc.boolean(),
    method: fc.oneof({ weight: 8, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: otherMethods }),
    params: fc.tuple(...op.params.map(paramArb)),
    query: hostileQuery(op.queryKeys, op.queryValues),
    auth: authArb,
    blogId: blogIdArb,
    contentType: fc.option(hostileContentType, { nil: null, freq: 6 }),
    contentEncoding: contentEncodingArb,
    requestId: fc.option(hostileRequestId, { nil: null, freq: 2 }),
    extra: extraHeadersArb,
    body: op.upload ? uploadBodyArb : hostileBody(op.body, FIELD_HINTS),
  });
}

/**
 * A request of the account's owner on its own fixtures, right in every part but one or two
 * hostile ones: most of these get past authentication, blog resolution and validation, so
 * the successes (and the rows they write) are fuzzed too, not only the refusals.
 */
function mostlySanePlanArb(op: Operation): fc.Arbitrary<Plan> {
  const sane = fc.record({
    postState: postStateArb,
    hasDomain: fc.boolean(),
    method: fc.constant(op.method),
    params: fc.constant(op.params.map((name): Template => (PARAM_FIXTURES[name] ? [ref(PARAM_FIXTURES[name][0]!)] : ['no-fixture']))),
    query: fc.constant(op.saneQuery),
    auth: fc.constantFrom<Auth>({ template: ['Bearer ', ref('accountKey')], valid: true }, { template: ['Bearer ', ref('blogKey')], valid: true }),
    blogId: fc.constant<Template>([ref('blogId')]),
    contentType: fc.constant(op.body ? 'application/json' : (op.upload?.[0] ?? null)),
    contentEncoding: fc.constant(null),
    requestId: fc.constant(null),
    extra: fc.constant<[string, string][]>([]),
    body: op.body
      ? objectForSchema(op.body, 0, true, FIELD_HINTS).map((raw) => Buffer.from(serialise(raw), 'utf8'))
      : op.upload
        ? saneUploadArb
        : fc.constant(undefined),
  });
  const parts = [
    'postState',
    'hasDomain',
    'method',
    'params',
    'query',
    'auth',
    'blogId',
    'contentType',
    'contentEncoding',
    'requestId',
    'extra',
    'body',
  ] as const;
  return fc
    .tuple(sane, hostilePlanArb(op), fc.subarray([...parts], { minLength: 0, maxLength: 2 }))
    .map(([base, hostile, swapped]) => ({ ...base, ...Object.fromEntries(swapped.map((part) => [part, hostile[part]])) }) as Plan);
}

function planArb(op: Operation): fc.Arbitrary<Plan> {
  return fc
    .oneof(hostilePlanArb(op), mostlySanePlanArb(op))
    .map((plan) => Object.assign(plan, { [fc.toStringMethod]: () => describeRequest(toRequest(op, plan, fixtures.values)) }));
}

function toRequest(op: Operation, plan: Plan, values: Readonly<Record<string, string>>): HostileRequest {
  let index = 0;
  const path = op.path.replace(/:\w+/g, () => resolveTemplate(plan.params[index++] ?? [], values));
  const headers: [string, string][] = [['Host', `127.0.0.1:${port}`]];
  if (plan.auth) headers.push(['Authorization', resolveTemplate(plan.auth.template, values)]);
  if (plan.blogId) headers.push(['X-Blog-Id', resolveTemplate(plan.blogId, values)]);
  if (plan.contentType !== null) headers.push(['Content-Type', plan.contentType]);
  if (plan.contentEncoding !== null) headers.push(['Content-Encoding', plan.contentEncoding]);
  if (plan.requestId !== null) headers.push(['X-Request-Id', plan.requestId]);
  headers.push(...plan.extra);
  return { method: plan.method, target: `${path}${plan.query}`, headers, ...(plan.body !== undefined ? { body: plan.body } : {}) };
}

/** The owner of what the request names, when it names another account's blog or key than the key's. */
function foreignTo(plan: Plan, matched: Operation): boolean {
  if (!plan.auth?.valid) return false;
  const keyOwner = OWNER_OF[refsOf(plan.auth.template)[0] ?? ''];
  const named = plan.params.flatMap((p) => (p.length === 1 ? refsOf(p) : []));
  const header = plan.blogId?.filter((part) => typeof part !== 'string' || part.trim() === '') ?? [];
  if (matched.blogScoped && plan.blogId && header.length === plan.blogId.length) named.push(...refsOf(plan.blogId));
  return named.some((r) => OWNER_OF[r] !== undefined && OWNER_OF[r] !== keyOwner);
}

// ---------------------------------------------------------------------------------------------
// The property

/** Requests sent per route under test, and the statuses they got (for the coverage test). */
const seen = new Map<string, Map<number, number>>();
/**
 * Routes a request reached as far as body validation (a 400 with `details`, which only
 * validate.ts gives, after authentication and scopes): a route whose body needs a value no
 * generator can guess (DELETE /v1/account's `confirm`, the account's id) answers 400 to
 * everything that got past its key, the same status the body parser gives before routing.
 */
const validated = new Set<string>();

/**
 * Statuses the HTTP layer and the body parser may answer before any route runs: malformed
 * requests, bodies too large or not JSON, an Expect other than 100-continue, headers too large.
 */
const BEFORE_ROUTING = [400, 413, 415, 417, 431];

function hasDetails(text: string): boolean {
  try {
    return Array.isArray((JSON.parse(text) as { details?: unknown }).details);
  } catch {
    return false;
  }
}

async function exchange(op: Operation, plan: Plan): Promise<void> {
  await fixtures.ensure(plan);
  const request = toRequest(op, plan, fixtures.values);
  const before = await markWrites(t);
  const res: HostileResponse = await sendHostile(port, request);
  // Whole-site jobs and webhook sends run after the answer; wait so their writes are not taken for the next request's.
  await fixtures.settle();
  const after = await markWrites(t);
  const statuses = seen.get(op.name) ?? new Map<number, number>();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  seen.set(op.name, statuses);
  if (res.status === 400 && hasDetails(res.text)) validated.add(op.name);

  const logged = log.linesFor(res.headers['x-request-id']).join('\n');
  const where = `${describeRequest(request)}\n→ ${res.status} ${res.text.slice(0, 300)}${logged ? `\nserver log: ${logged.slice(0, 3000)}` : ''}`;
  expectSoundAnswer(res, where, plan.requestId ?? undefined);
  const matched = matchOperation(router, operations, plan.method, request.target);
  // A success of an operation documented with another media type (GET /metrics: text/plain).
  if (matched && res.status === matched.success && !matched.successTypes.some((type) => type.endsWith('json'))) {
    const type = res.headers['content-type'] ?? '';
    expect(
      matched.successTypes.some((documented) => type.startsWith(documented)),
      `${where}: content type ${type}, documented ${matched.successTypes.join(', ')}`,
    ).toBe(true);
  } else {
    expectApiAnswer(res, where, contract);
  }
  expectWritesMatch(before, after, res.status, where);

  if (!matched) {
    // 405 only where the path is served for another method (GET /mcp: the endpoint takes POST).
    const pathServed = ['GET', 'POST', 'PUT', 'DELETE'].some((method) => matchOperation(router, operations, method, request.target));
    expect([...BEFORE_ROUTING, 404, ...(pathServed ? [405] : [])], `${where}: no route`).toContain(res.status);
    return;
  }
  if (res.status >= 200 && res.status < 300) expect(matched.successes, `${where}: success status of ${matched.name}`).toContain(res.status);
  if (!matched.secured) {
    expect([...BEFORE_ROUTING, ...matched.successes, ...matched.clientErrors], where).toContain(res.status);
  } else if (!plan.auth?.valid) {
    expect([...BEFORE_ROUTING, 401], `${where}: without a live key`).toContain(res.status);
  } else if (foreignTo(plan, matched)) {
    expect([...BEFORE_ROUTING, 403, 404], `${where}: names another account's blog or key`).toContain(res.status);
  }
}

describe.each(operations.map((op) => [op.name, op] as const))('%s', (_name, op) => {
  it(
    'answers hostile path parameters, queries, headers and bodies soundly, writing only what a 2xx says',
    async () => {
      await fc.assert(
        fc.asyncProperty(planArb(op), (plan) => exchange(op, plan)),
        { numRuns: RUNS },
      );
      await checkDatabase(t);
      expectPrototypeClean();
    },
    hostileTimeout(RUNS),
  );
});

// ---------------------------------------------------------------------------------------------
// Unknown routes and methods

const unknownPathArb = fc.oneof(
  fc.array(hostileSegment, { minLength: 1, maxLength: 4 }).map((segments) => `/v1/${segments.join('/')}`),
  fc.array(hostileSegment, { minLength: 0, maxLength: 3 }).map((segments) => `/${segments.join('/')}`),
  fc.constantFrom(
    '/',
    '*',
    '//v1//posts',
    '/v1',
    '/v1/',
    '/v2/posts',
    '/V1/POSTS',
    '/v1/posts/',
    '/v1/posts/x/y/z',
    '/v1/posts/x/publish/extra',
    '/healthz/',
    '/HEALTHZ',
    '/v1/openapi.json/x',
    '/v1/openapi.JSON',
    '/%2e%2e/v1/posts',
    '/v1/%70osts',
    '/v1/./posts',
    '/v1/../v1/posts',
    `http://127.0.0.1/v1/posts`,
    '/v1/blogs/%00',
    '/v1/search%3Fq=x',
    '/v1/blogs?',
    '/v1/posts;jsessionid=1',
  ),
);

describe('unknown routes and methods', () => {
  it(
    'answer 404 not_found (or the HTTP layer’s refusal), never a 5xx, writing nothing',
    async () => {
      const methodArb = fc.constantFrom(
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'DELETE',
        'PATCH',
        'OPTIONS',
        'TRACE',
        'PROPFIND',
        'MKCOL',
        'PURGE',
        'FOO',
        'get',
        'G\u0001T',
      );
      await fc.assert(
        fc.asyncProperty(methodArb, unknownPathArb, hostileQuery([], []), authArb, hostileBody(undefined), async (method, path, query, auth, body) => {
          await fixtures.ensure();
          const headers: [string, string][] = [['Host', `127.0.0.1:${port}`]];
          if (auth) headers.push(['Authorization', resolveTemplate(auth.template, fixtures.values)]);
          if (body !== undefined) headers.push(['Content-Type', 'application/json']);
          const request: HostileRequest = { method, target: `${path}${query}`, headers, ...(body !== undefined ? { body } : {}) };
          const before = await markWrites(t);
          const res = await sendHostile(port, request);
          await fixtures.settle();
          const where = `${describeRequest(request)}\n→ ${res.status} ${res.text.slice(0, 300)}\n${log.linesFor(res.headers['x-request-id']).join('\n').slice(0, 3000)}`;
          expectSoundAnswer(res, where, undefined);
          expectApiAnswer(res, where, contract);
          const matched = matchOperation(router, operations, method, request.target);
          // Paths that still reach a route (`/V1/POSTS`: the router ignores case) are that route's business.
          if (!matched) {
            expect([...BEFORE_ROUTING, 404], where).toContain(res.status);
            expectWritesMatch(before, await markWrites(t), 404, where);
          }
        }),
        { numRuns: RUNS * 2 },
      );
      await checkDatabase(t);
    },
    hostileTimeout(RUNS * 2),
  );
});

// ---------------------------------------------------------------------------------------------
// Coverage: this must fail when the router serves something the suite did not fuzz

describe('coverage', () => {
  it('fuzzed every operation the router serves, each described by the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations) {
      expect(op.documented, `${op.name} is not in GET /v1/openapi.json: its query and body cannot be fuzzed`).toBe(true);
      for (const param of op.params) expect(PARAM_FIXTURES[param], `${op.name}: no fixtures for :${param}`).toBeDefined();
      const statuses = seen.get(op.name) ?? new Map<number, number>();
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      expect(total, `${op.name} was not fuzzed`).toBeGreaterThan(0);
      // After a full run (not one cut short by a counterexample), requests got past authentication.
      if (op.secured && total >= RUNS)
        expect(
          validated.has(op.name) || [...statuses.keys()].some((s) => s !== 401 && !BEFORE_ROUTING.includes(s)),
          `${op.name}: ${JSON.stringify([...statuses])}`,
        ).toBe(true);
    }
    if (process.env.HOSTILE_VERBOSE) {
      for (const [name, statuses] of seen) console.log(name.padEnd(45), JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b))));
    }
  });
});
