import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { compose, type ComposeOptions, type Folio } from '../../src/compose/compose.js';
import { createLogger, type Logger } from '../../src/lib/logger.js';
import { createHttpServer } from '../../src/http/httpServer.js';
import type { PublishJob } from '../../src/db/jobsRepo.js';
import type { RunBeside } from '../../src/publish/jobs/jobRunner.js';
import type { Plan } from '../../src/domain/plans.js';
import type { BlogSearcher } from '../../src/search/ports.js';
import { inject } from 'vitest';
import { FakeClock } from './fakeClock.js';
import { createPostgresDatabase } from './postgres.js';
import { freshDatabaseEnv } from './freshDatabase.js';
import { OpenApiContract } from './openApiContract.js';
import type { SiteStore } from '../../src/storage/siteStore.js';
import type { SearchIndexUpdater } from '../../src/search/ports.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON and media type tests). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  blogId?: string;
}

export interface TestApp {
  folio: Folio;
  clock: FakeClock;
  baseUrl: string;
  dataDir: string;
  /**
   * What a `folio` command (or another app, as `env`) needs to work on this app's data:
   * FOLIO_DATA_DIR, and the app's FOLIO_DATABASE_URL when it runs on PostgreSQL (without it they
   * would open an empty SQLite file in the data dir).
   */
  cliEnv: Record<string, string>;
  /** Key of the enterprise account created for the test. */
  key: string;
  /** Id of that enterprise account. */
  accountId: string;
  handledJobs: PublishJob[];
  /**
   * CNAME answers of the fake DNS used when no `resolver` option is given: hostname → targets.
   * A hostname without an entry answers ENODATA, as a real resolver would; no network is used.
   */
  dns: Map<string, string[]>;
  /**
   * TXT answers of the same fake DNS: name → records, each record as its strings. A name
   * without an entry answers ENOTFOUND.
   */
  txt: Map<string, string[][]>;
  /** Puts both records a registration answer asks for (CNAME and TXT challenge) in the fake DNS. */
  satisfyDomainChallenge(registration: { hostname: string; cname_target: string; verification: { name: string; value: string } }): void;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  createAccount(plan: Plan): Promise<{ accountId: string; key: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  jobHandler?: ComposeOptions['jobHandler'];
  searcher?: BlogSearcher;
  resolver?: ComposeOptions['resolver'];
  clock?: FakeClock;
  dataDir?: string;
  store?: SiteStore;
  searchUpdater?: SearchIndexUpdater;
  /** Settle the public URL settings against the database as the server ('server') or the CLI does. */
  publicUrls?: ComposeOptions['publicUrls'];
  /** DNS for webhook URLs (default: the system's). */
  webhookLookup?: ComposeOptions['webhookLookup'];
  /** Webhook deliveries' deadline and slots (default: the server's). */
  webhookLimits?: ComposeOptions['webhookLimits'];
  /** Where the app logs (default: silent); suites that hunt 500s keep the logged stacks. */
  logger?: Logger;
}

/**
 * The environment of data a test prepares before an app runs on it (`folio import` into a fresh
 * data dir): FOLIO_DATA_DIR, and on the PostgreSQL pass a database of its own. An app started with
 * `{ dataDir, env }` then works on the same data.
 */
export async function freshDataEnv(dataDir: string): Promise<Record<string, string>> {
  return { FOLIO_DATA_DIR: dataDir, ...(await freshDatabaseEnv()) };
}

/** The real app over real HTTP on a loopback port, with a fresh SQLite file in a temp dir. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'folio-test-'));
  // Social cards are off unless a test turns them on: drawing one per publish would cost every
  // suite seconds of font parsing and drawing; test/integration/socialCards.test.ts runs them.
  // The PostgreSQL pass (vitest.postgres.config.ts) gives every app a database of its own.
  const postgresBase = inject('postgresBase');
  const database = postgresBase && options.dataDir === undefined ? { FOLIO_DATABASE_URL: await createPostgresDatabase(postgresBase) } : {};
  const config = loadConfig({ FOLIO_DATA_DIR: dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_SOCIAL_CARDS: 'off', ...database, ...options.env });
  const clock = options.clock ?? new FakeClock();
  const handledJobs: PublishJob[] = [];
  const dns = new Map<string, string[]>();
  const txt = new Map<string, string[][]>();
  const fakeResolver: NonNullable<ComposeOptions['resolver']> = {
    resolveCname: async (hostname) => {
      const answer = dns.get(hostname);
      if (answer) return answer;
      throw Object.assign(new Error(`queryCname ENODATA ${hostname}`), { code: 'ENODATA' });
    },
    resolveTxt: async (name) => {
      const answer = txt.get(name);
      if (answer) return answer;
      throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
  };
  // By default jobs go to the real publisher (into the folder store under the temp data dir),
  // and are also recorded so tests can see which jobs a request produced.
  let publish: ((job: PublishJob) => Promise<void>) | null = null;
  let publishBatch: ((jobs: readonly PublishJob[]) => Promise<void>) | null = null;
  let publishBeside: RunBeside | null = null;
  const logger = options.logger ?? createLogger('silent');
  const folio = await compose({
    config,
    logger,
    clock,
    ...(options.store ? { store: options.store } : {}),
    jobHandler:
      options.jobHandler ??
      (async (job) => {
        handledJobs.push(job);
        await publish?.(job);
      }),
    // Post jobs queued behind a running one fold into one batch, as in the server (recorded too).
    ...(options.jobHandler
      ? {}
      : {
          jobBatchHandler: async (jobs: readonly PublishJob[]) => {
            handledJobs.push(...jobs);
            await publishBatch?.(jobs);
          },
          // And post jobs run between two chunks of a full render, unless left to their own turn
          // (null): that turn records them.
          jobBesideHandler: async (jobs: readonly PublishJob[]) => {
            let keys: readonly string[] | null = [];
            try {
              keys = publishBeside ? await publishBeside(jobs) : null;
              return keys;
            } finally {
              if (keys !== null) handledJobs.push(...jobs);
            }
          },
        }),
    ...(options.searcher && options.searchUpdater ? { search: { searcher: options.searcher, updater: options.searchUpdater } } : {}),
    resolver: options.resolver ?? fakeResolver,
    ...(options.publicUrls ? { publicUrls: options.publicUrls } : {}),
    ...(options.webhookLookup ? { webhookLookup: options.webhookLookup } : {}),
    ...(options.webhookLimits ? { webhookLimits: options.webhookLimits } : {}),
  });
  publish = folio.handleJob;
  publishBatch = folio.handleJobs;
  publishBeside = folio.handleJobsBeside;
  const server: Server = createHttpServer(folio.listener, logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const { apiKey, account } = await folio.accounts.create({ plan: 'enterprise' });

  let contract: OpenApiContract | null = null;
  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? apiKey : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (opts.blogId) headers['x-blog-id'] = opts.blogId;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path.startsWith('/') ? path : `/v1/${path}`}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
      redirect: 'manual',
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const target = path.startsWith('/') ? path : `/v1/${path}`;
    if (target.startsWith('/v1/') && target !== '/v1/openapi.json') {
      contract ??= new OpenApiContract((await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as ConstructorParameters<typeof OpenApiContract>[0]);
      contract.check(method, target, res.status, res.headers, parsed);
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  return {
    folio,
    clock,
    baseUrl,
    dataDir,
    cliEnv: { FOLIO_DATA_DIR: dataDir, ...(config.databaseUrl ? { FOLIO_DATABASE_URL: config.databaseUrl } : {}) },
    key: apiKey,
    accountId: account.id,
    handledJobs,
    dns,
    txt,
    satisfyDomainChallenge: (registration) => {
      dns.set(registration.hostname, [registration.cname_target]);
      txt.set(registration.verification.name, [[registration.verification.value]]);
    },
    request,
    createAccount: async (plan) => {
      const { account, apiKey: k } = await folio.accounts.create({ plan });
      return { accountId: account.id, key: k };
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A connection a test left mid-request (an upload's client gone quiet after its refusal)
      // would hold close() for ever; the server's own drain is tested in shutdown.test.ts.
      const force = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearTimeout(force);
      await folio.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
