/**
 * Three Folio nodes on one PostgreSQL database and one bucket (issue #32, "Beyond one machine"):
 * real server processes (the bundle, as `npm start` runs it), a PostgreSQL cluster of this file's
 * own (so it can be stopped and started again), and the run's s3rver. Every wait is on
 * something observable (a row, an answer); times are only bounded generously.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestBucket } from '../../bench/harness/s3rver.js';
import { visit } from '../../bench/harness/visit.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { FOLIO_BIN, runToEnd, spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

const SERVICE_DOMAIN = 'blogs.test';

interface Node {
  name: string;
  server: SpawnedServer;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One query on a connection of its own: the cluster is stopped and started under these tests. */
async function query<Row>(url: string, text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 100): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe('three nodes on one PostgreSQL database and one bucket (#32)', () => {
  let cluster: Postgres;
  let databaseUrl: string;
  /** What every node and every `folio` command is given. */
  let env: Record<string, string>;
  const cliDirs: string[] = [];
  /** Every node started, for afterAll; `live` are the ones not stopped by a test. */
  const started: SpawnedServer[] = [];
  let live: Node[] = [];
  let apiKey = '';
  /** The blog of a few hundred posts the re-render cases rename. */
  const bigBlog = { id: '', slug: 'bittern', posts: 240 };

  const node = (name: string): Node => {
    const found = live.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`node ${name} is not running`);
    return found;
  };

  const call = async (target: Node, method: string, path: string, options: { body?: unknown; blogId?: string; key?: string } = {}): Promise<Answer> => {
    const res = await fetch(`${target.server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.key ?? apiKey}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.blogId ? { 'x-blog-id': options.blogId } : {}),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body };
  };

  /** A call that must succeed: its JSON body. */
  const ok = async (target: Node, method: string, path: string, options: { body?: unknown; blogId?: string } = {}): Promise<any> => {
    const answer = await call(target, method, path, options);
    expect(answer.status, `${target.name} ${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body;
  };

  const folio = async (...args: string[]) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'folio-nodes-cli-'));
    cliDirs.push(dataDir);
    return runToEnd([FOLIO_BIN, ...args], { ...env, FOLIO_DATA_DIR: dataDir });
  };

  const expectVerified = async (slug: string): Promise<void> => {
    const verify = await folio('site', 'verify', slug);
    expect(verify.stdout + verify.stderr).toContain('the store matches the database');
    expect(verify.code).toBe(0);
  };

  const startNode = async (name: string): Promise<Node> => {
    const server = await spawnServer({ ...env, FOLIO_DATA_DIR: mkdtempSync(join(tmpdir(), 'folio-node-')) });
    started.push(server);
    // Logged once it listens, after the first-start banner (same stream): the banner is read by then.
    await server.waitForLine((line) => line.json?.msg === 'folio listening', 10_000);
    return { name, server };
  };

  /** Which live node a lease's holder (`<hostname>/<pid>/<random>`) names. */
  const nodeOfHolder = (holder: string): Node | undefined => live.find((candidate) => holder.split('/')[1] === String(candidate.server.child.pid));

  /** The status of a publish job, with the database's time of the reading. */
  const jobState = async (id: string): Promise<{ status: string; now: Date }> => {
    const [row] = await query<{ status: string; now: Date }>(databaseUrl, 'SELECT status, clock_timestamp() AS now FROM publish_jobs WHERE id = $1', [id]);
    if (!row) throw new Error(`no publish job ${id}`);
    return row;
  };

  /** Waits until nothing holds the blog (the background index writes of its last posts are over). */
  const blogHandedBack = (slug: string): Promise<true> =>
    waitFor(`the blog ${slug} handed back`, 60_000, async () =>
      (await query(databaseUrl, 'SELECT 1 FROM blog_leases WHERE blog = $1', [slug])).length === 0 ? true : undefined,
    );

  /**
   * Renames the blog through `through` (a 'site' job every page is rendered again by, started in
   * the background), then waits until a node holds the blog with that job still pending: it runs.
   */
  const startReRender = async (through: Node, name: string): Promise<{ jobId: string; holder: string }> => {
    await blogHandedBack(bigBlog.slug);
    await ok(through, 'PUT', `/v1/blogs/${bigBlog.id}`, { body: { name } });
    const [job] = await query<{ id: string }>(databaseUrl, "SELECT id FROM publish_jobs WHERE blog_id = $1 AND kind = 'site' ORDER BY id DESC LIMIT 1", [
      bigBlog.id,
    ]);
    const holder = await waitFor(
      'the re-render running on a node',
      30_000,
      async () => {
        const [lease] = await query<{ holder: string }>(databaseUrl, 'SELECT holder FROM blog_leases WHERE blog = $1', [bigBlog.slug]);
        expect((await jobState(job!.id)).status).toBe('pending');
        return lease?.holder;
      },
      20,
    );
    return { jobId: job!.id, holder };
  };

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    const { bucket } = await createTestBucket(inject('s3Endpoint'));
    env = {
      FOLIO_DATABASE_URL: databaseUrl,
      FOLIO_STORAGE: 's3',
      FOLIO_S3_BUCKET: bucket,
      FOLIO_S3_ENDPOINT: inject('s3Endpoint'),
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      FOLIO_SERVICE_DOMAIN: SERVICE_DOMAIN,
      FOLIO_PUBLIC_SCHEME: 'http',
      FOLIO_RATE_LIMITS: 'off',
      FOLIO_SOCIAL_CARDS: 'off',
    };
    // The same moment: all three apply the schema and look for a first account together.
    live = await Promise.all(['A', 'B', 'C'].map(startNode));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((server) => server.cleanup()));
    for (const dir of cliDirs) rmSync(dir, { recursive: true, force: true });
    await cluster?.stop();
  });

  it('three nodes started together on an empty database: one prints the first-start key, all answer /healthz', async () => {
    const banners = live.filter((candidate) => candidate.server.lines.some((line) => line.text.includes('API key: ')));
    expect(banners.map((candidate) => candidate.name)).toHaveLength(1);
    apiKey = /API key: (\S+)/.exec(banners[0]!.server.lines.find((line) => line.text.includes('API key: '))!.text)![1]!;
    expect(await query(databaseUrl, 'SELECT id FROM accounts')).toHaveLength(1);
    for (const each of live) {
      const res = await fetch(`${each.server.baseUrl}/healthz`);
      expect(res.status).toBe(200);
    }
    // The first account's key works on every node.
    for (const each of live) expect((await call(each, 'GET', '/v1/account')).status).toBe(200);
  });

  it("reads its writes across nodes: a post published through A is on B's API and site server and in C's search at once", async () => {
    const blog = await ok(node('A'), 'POST', '/v1/blogs', { body: { slug: 'heron', name: 'The heron' } });
    const post = await ok(node('A'), 'POST', '/v1/posts', {
      blogId: blog.id,
      body: { title: 'Wading birds', content: 'Herons stand still in shallow water.', status: 'published' },
    });
    const onB = await call(node('B'), 'GET', `/v1/posts/${post.slug}`, { blogId: blog.id });
    expect(onB.status).toBe(200);
    expect(onB.body).toMatchObject({ slug: post.slug, status: 'published', title: 'Wading birds' });
    const page = await visit(node('B').server.baseUrl, `heron.${SERVICE_DOMAIN}`, new URL(post.url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Herons stand still in shallow water.');
    const found = await call(node('C'), 'GET', '/v1/search?q=shallow', { blogId: blog.id });
    expect(found.status).toBe(200);
    expect(found.body.data.map((hit: { slug: string }) => hit.slug)).toEqual([post.slug]);
  });

  it('a key made on A works on B, and fails on B with 401 at the next request after A revoked it', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await ok(node('A'), 'POST', '/v1/account/api-keys', { body: { name: `roaming ${round}` } });
      expect((await call(node('B'), 'GET', '/v1/account', { key: created.key })).status).toBe(200);
      await ok(node('A'), 'DELETE', `/v1/account/api-keys/${created.id}`);
      const after = await call(node('B'), 'GET', '/v1/account', { key: created.key });
      expect(after.status, `round ${round}`).toBe(401);
    }
  });

  it('thirty posts published to one blog through all three nodes at once leave the blog as the database says', async () => {
    const blog = await ok(node('B'), 'POST', '/v1/blogs', { body: { slug: 'egret', name: 'The egret' } });
    const posts = await inParallel(
      Array.from({ length: 30 }, (_, n) => n),
      30,
      (n) =>
        ok(live[n % live.length]!, 'POST', '/v1/posts', {
          blogId: blog.id,
          body: { title: `Egret sighting ${n}`, content: `Sighting number ${n}, by the river.`, status: 'published', tags: ['sightings'] },
        }),
    );
    // Every page is there once its request answered, whichever node served the request.
    for (const [n, post] of posts.entries()) {
      const page = await visit(node('C').server.baseUrl, `egret.${SERVICE_DOMAIN}`, new URL(post.url).pathname);
      expect(page.status, post.url).toBe(200);
      expect(page.text).toContain(`Sighting number ${n}, by the river.`);
    }
    await expectVerified('egret');
  }, 120_000);

  it('publishes each scheduled post once, at its time, while every node ticks', async () => {
    const blog = await ok(node('C'), 'POST', '/v1/blogs', { body: { slug: 'plover', name: 'The plover' } });
    const drafts = await inParallel(
      Array.from({ length: 8 }, (_, n) => n),
      8,
      (n) => ok(live[n % live.length]!, 'POST', '/v1/posts', { blogId: blog.id, body: { title: `Plover ${n}`, content: `Plover number ${n}.` } }),
    );
    // Due in two seconds: every node's once-a-second tick finds them due at about the same time.
    const at = new Date(Date.now() + 2_000).toISOString();
    for (const [n, draft] of drafts.entries()) {
      await ok(live[n % live.length]!, 'POST', `/v1/posts/${draft.slug}/schedule`, { blogId: blog.id, body: { scheduled_at: at } });
    }
    await waitFor('the scheduled posts published', 30_000, async () => {
      const rows = await query<{ n: number }>(databaseUrl, "SELECT COUNT(*)::int AS n FROM posts WHERE blog_id = $1 AND status = 'published'", [blog.id]);
      return rows[0]!.n === drafts.length ? true : undefined;
    });
    for (const [n, draft] of drafts.entries()) {
      const [post] = await query<{ published_at: string }>(databaseUrl, 'SELECT published_at FROM posts WHERE id = $1', [draft.id]);
      expect(post!.published_at).toBe(at);
      // Published once: one publish job recorded for it, whichever node's tick moved it.
      const jobs = await query(databaseUrl, "SELECT id FROM publish_jobs WHERE kind = 'post' AND payload::json->>'postId' = $1", [draft.id]);
      expect(jobs, draft.slug).toHaveLength(1);
      const page = await waitFor(`${draft.slug} on the site`, 30_000, async () => {
        const answer = await visit(node('A').server.baseUrl, `plover.${SERVICE_DOMAIN}`, new URL(draft.url).pathname);
        return answer.status === 200 ? answer : undefined;
      });
      expect(page.text).toContain(`Plover number ${n}.`);
    }
  }, 60_000);

  it('a node killed mid-job during a whole-blog re-render: another node takes the job over once its lease expired', async () => {
    const blog = await ok(node('A'), 'POST', '/v1/blogs', { body: { slug: bigBlog.slug, name: 'The bittern' } });
    bigBlog.id = blog.id;
    const fillStarted = performance.now();
    await inParallel(
      Array.from({ length: bigBlog.posts }, (_, n) => n),
      12,
      (n) =>
        ok(live[n % live.length]!, 'POST', '/v1/posts', {
          blogId: blog.id,
          body: { title: `Booming call ${n}`, content: `The bittern booms at dusk, call ${n}.\n\nReeds all around.`, status: 'published' },
        }),
    );
    const fillMs = performance.now() - fillStarted;

    const { jobId, holder } = await startReRender(node('A'), 'The bittern, renamed');
    const victim = nodeOfHolder(holder);
    expect(victim, holder).toBeDefined();
    victim!.server.child.kill('SIGKILL');
    await victim!.server.exited;
    live = live.filter((candidate) => candidate !== victim);
    const [killed] = await query<{ expires_at: Date; now: Date }>(
      databaseUrl,
      'SELECT expires_at, clock_timestamp() AS now FROM blog_leases WHERE blog = $1 AND holder = $2',
      [bigBlog.slug, holder],
    );
    expect(killed, 'the dead node still holds the blog').toBeDefined();

    // Times are the database's: when another node was first seen holding the blog (or the job
    // done, if it was quicker than a poll), and when the job was done.
    const takenOver = await waitFor('another node holding the blog', 60_000, async () => {
      const [lease] = await query<{ holder: string; now: Date }>(databaseUrl, 'SELECT holder, clock_timestamp() AS now FROM blog_leases WHERE blog = $1', [
        bigBlog.slug,
      ]);
      if (lease && lease.holder !== holder) return lease.now;
      const state = await jobState(jobId);
      return state.status === 'done' ? state.now : undefined;
    });
    const done = await waitFor('the re-render done', 60_000, async () => {
      const state = await jobState(jobId);
      return state.status === 'done' ? state.now : undefined;
    });
    const expiredAfterKillMs = killed!.expires_at.getTime() - killed!.now.getTime();
    const takeoverAfterExpiryMs = takenOver.getTime() - killed!.expires_at.getTime();
    const doneAfterKillMs = done.getTime() - killed!.now.getTime();
    console.log(
      `[severalNodes] ${bigBlog.posts} posts made in ${Math.round(fillMs)} ms; killed node ${victim!.name}; its lease expired ${expiredAfterKillMs} ms later; taken over ${takeoverAfterExpiryMs} ms after that; job done ${doneAfterKillMs} ms after the kill`,
    );
    expect(takeoverAfterExpiryMs).toBeLessThan(30_000);
    const home = await visit(live[0]!.server.baseUrl, `${bigBlog.slug}.${SERVICE_DOMAIN}`, '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('The bittern, renamed');
    await expectVerified(bigBlog.slug);
  }, 180_000);

  it('answers 503 with Retry-After while PostgreSQL is down, and 200 again once it is back', async () => {
    const target = live[0]!;
    const blogId = bigBlog.id;
    await cluster.pause();
    try {
      for (const [method, path, body] of [
        ['GET', '/v1/account', undefined],
        ['GET', '/v1/posts', undefined],
        ['POST', '/v1/posts', { title: 'While down', content: 'Never written.', status: 'published' }],
      ] as const) {
        const answer = await call(target, method, path, { blogId, body });
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(503);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const health = await fetch(`${target.server.baseUrl}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.text()).toMatch(/the database cannot be reached/);
      // The site server too: a blog's host is looked up in the database.
      const page = await visit(target.server.baseUrl, `${bigBlog.slug}.${SERVICE_DOMAIN}`, '/');
      expect(page.status).toBe(503);
      expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await cluster.start();
    }
    const back = performance.now();
    await waitFor('/healthz 200 again', 30_000, async () => ((await fetch(`${target.server.baseUrl}/healthz`)).status === 200 ? true : undefined));
    const reconnectMs = performance.now() - back;
    const post = await ok(target, 'POST', '/v1/posts', {
      blogId,
      body: { title: 'After the restart', content: 'Written once the database was back.', status: 'published' },
    });
    for (const each of live) {
      const page = await visit(each.server.baseUrl, `${bigBlog.slug}.${SERVICE_DOMAIN}`, new URL(post.url).pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Written once the database was back.');
    }
    console.log(`[severalNodes] /healthz answered 200 ${Math.round(reconnectMs)} ms after PostgreSQL was back`);
  });

  it('a node stopped with SIGTERM during a re-render and a request exits 0, the job done and its lease gone', async () => {
    const { jobId, holder } = await startReRender(live[0]!, 'The bittern, drained');
    const stopping = nodeOfHolder(holder);
    expect(stopping, holder).toBeDefined();
    // A request whose publish waits behind the re-render, on the same node.
    const request = call(stopping!, 'POST', '/v1/posts', {
      blogId: bigBlog.id,
      body: { title: 'Drained', content: 'Published while the node was stopping.', status: 'published' },
    });
    await waitFor(
      'the request committed',
      30_000,
      async () => ((await query(databaseUrl, "SELECT 1 FROM posts WHERE blog_id = $1 AND slug = 'drained'", [bigBlog.id])).length > 0 ? true : undefined),
      20,
    );
    const signalled = performance.now();
    stopping!.server.child.kill('SIGTERM');
    const answer = await request;
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const exit = await stopping!.server.exited;
    expect(exit.code).toBe(0);
    live = live.filter((candidate) => candidate !== stopping);
    const doneByIt = (await jobState(jobId)).status === 'done';
    await waitFor('the re-render done', 60_000, async () => ((await jobState(jobId)).status === 'done' ? true : undefined));
    expect(await query(databaseUrl, 'SELECT blog FROM blog_leases WHERE holder = $1', [holder])).toEqual([]);
    expect(await query(databaseUrl, "SELECT id FROM publish_jobs WHERE status <> 'done'")).toEqual([]);
    const page = await visit(live[0]!.server.baseUrl, `${bigBlog.slug}.${SERVICE_DOMAIN}`, new URL(answer.body.url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Published while the node was stopping.');
    console.log(
      `[severalNodes] node ${stopping!.name} exited ${Math.round(exit.at - signalled)} ms after SIGTERM; the re-render was ${doneByIt ? 'done by it' : 'left to another node'}`,
    );
    await expectVerified(bigBlog.slug);
  }, 120_000);
});
