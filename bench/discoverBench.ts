/**
 * GET /v1/discover (issue #29 part 3) at the size: 1,000 opted-in blogs of 100 published
 * posts each (windows over the generated corpus, as bench/tenantsBench.ts makes its blogs),
 * written straight into a fresh database with the discovery index's own writer (DiscoveryRepo),
 * then queried over HTTP against the bundled server in a child process.
 *
 * Queries are what readers type (searchBench's generateQueries: one to three title words, every
 * fifth Korean; common words included), every fourth with a `lang` filter, one at a time. The
 * anchor, timed interleaved in the same run on the same connection pool, is GET /healthz: the
 * server's floor for one HTTP exchange. The per-address limit (60 a minute) is met by sending
 * from many loopback addresses, as many readers would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../src/db/database.js';
import { SqliteClient } from '../src/db/sql/sqliteClient.js';
import { DiscoveryRepo } from '../src/db/discoveryRepo.js';
import type { DiscoveryDocument } from '../src/search/discovery/ports.js';
import { percentile } from './harness/stats.js';
import { generateQueries, loadCorpus } from './searchBench.js';
import { startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

export interface DiscoverBenchOptions {
  blogs: number;
  postsPerBlog: number;
  corpusDir: string;
  corpusPosts: number;
  queries?: number;
}

const AREA = 'discover';
/** Loopback addresses the readers send from: 60 requests a minute each. */
const ADDRESSES = 200;

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** One GET over a keep-alive agent bound to a loopback address; resolves with the status. */
function get(agent: Agent, localAddress: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes accounts, blogs, posts and discovery entries; returns the seconds the index writes took. */
async function seed(dataDir: string, opts: DiscoverBenchOptions): Promise<{ seconds: number; posts: number }> {
  const corpus = loadCorpus(opts.corpusDir, opts.corpusPosts);
  const db = openDatabase(join(dataDir, 'folio.db'));
  const sql = new SqliteClient(db);
  const discovery = new DiscoveryRepo(sql);
  const now = new Date().toISOString();
  const accountId = randomUUID();
  db.prepare(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (?, 'enterprise', ?, ?)`).run(accountId, now, now);
  const insertBlog = db.prepare(
    `INSERT INTO blogs (id, account_id, slug, name, description, theme_config, discoverable, created_at, updated_at) VALUES (?, ?, ?, ?, '', '{}', 1, ?, ?)`,
  );
  const insertPost = db.prepare(
    `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, tags, status, published_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'published', ?, ?, ?)`,
  );
  let seconds = 0;
  let posts = 0;
  let entries: DiscoveryDocument[] = [];
  // Ten blogs per index transaction: FTS5 merges fewer, larger segments, as a bulk load should.
  const flush = async (): Promise<void> => {
    const started = performance.now();
    await discovery.upsert(entries);
    seconds += (performance.now() - started) / 1000;
    posts += entries.length;
    entries = [];
  };
  for (let b = 0; b < opts.blogs; b++) {
    const blogId = randomUUID();
    db.transaction(() => {
      insertBlog.run(blogId, accountId, `d${b}`, `Discover ${b}`, now, now);
      for (let j = 0; j < opts.postsPerBlog; j++) {
        const doc = corpus[(b * opts.postsPerBlog + j) % corpus.length]!;
        const postId = randomUUID();
        // A blog's copy of a corpus post is published a few minutes after the previous blog's.
        const publishedAt = new Date(Date.parse(doc.publishedAt) + b * 300_000).toISOString();
        // Rows as large as real ones (Markdown and HTML of the post's size), so that what the
        // query reads of them costs what it would.
        insertPost.run(
          postId,
          blogId,
          doc.title,
          doc.slug,
          doc.body,
          doc.body,
          doc.metaDescription,
          JSON.stringify(doc.tags),
          publishedAt,
          publishedAt,
          publishedAt,
        );
        entries.push({
          postId,
          blogId,
          lang: /[가-힣]/.test(doc.title) ? 'ko' : 'en',
          publishedAt,
          title: doc.title,
          tags: doc.tags,
          description: doc.metaDescription,
          body: doc.body,
          code: doc.code,
        });
      }
    })();
    if (b % 10 === 9) await flush();
  }
  await flush();
  await sql.close();
  db.close();
  return { seconds, posts };
}

export async function runDiscoverBench(opts: DiscoverBenchOptions): Promise<BenchRow[]> {
  const area = `${AREA} (${opts.blogs.toLocaleString('en-US')} blogs × ${opts.postsPerBlog})`;
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-discover-bench-'));
  const rows: BenchRow[] = [];
  try {
    // A first start on the empty data dir records the render fingerprint, so the start that
    // serves the bench does not queue a re-render of every blog written below.
    await (await startBenchServer({ FOLIO_DATA_DIR: dataDir })).stop();
    const seeded = await seed(dataDir, opts);
    rows.push({
      area,
      measure: `index ${seeded.posts.toLocaleString('en-US')} posts (tokenize + FTS5 writes, 1,000 a transaction)`,
      value: `${seeded.seconds.toFixed(1)} s`,
    });

    const server = await startBenchServer({ FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'warn' });
    try {
      const corpus = loadCorpus(opts.corpusDir, Math.min(opts.corpusPosts, 10_000));
      const queries = generateQueries(corpus, opts.queries ?? 1000).map(
        (q, i): Record<string, string> => (i % 4 === 3 ? { q, lang: /[가-힣]/.test(q) ? 'ko' : 'en' } : { q }),
      );
      const agents = Array.from({ length: ADDRESSES }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
      const addressOf = (i: number): string => `127.0.0.${2 + (i % ADDRESSES)}`;
      const discover: number[] = [];
      const anchor: number[] = [];
      let found = 0;
      // Warm-up: the first queries compile the statements and read the index's pages.
      for (let i = 0; i < 20; i++) await get(agents[i]!, addressOf(i), `${server.baseUrl}/v1/discover?${new URLSearchParams(queries[i]!)}`);
      const loadBefore = loadavg()[0]!;
      for (const [i, query] of queries.entries()) {
        const agent = agents[i % ADDRESSES]!;
        const address = addressOf(i);
        const timed = async (url: string, into: number[]): Promise<{ status: number; body: string }> => {
          const started = performance.now();
          const res = await get(agent, address, url);
          into.push(performance.now() - started);
          return res;
        };
        const steps = [
          async () => {
            const res = await timed(`${server.baseUrl}/v1/discover?${new URLSearchParams(query)}`, discover);
            if (res.status !== 200) throw new Error(`GET /v1/discover answered ${res.status}: ${res.body.slice(0, 200)}`);
            if ((JSON.parse(res.body) as { data: unknown[] }).data.length > 0) found += 1;
          },
          async () => {
            const res = await timed(`${server.baseUrl}/healthz`, anchor);
            if (res.status !== 200) throw new Error(`GET /healthz answered ${res.status}`);
          },
        ];
        for (const step of i % 2 === 0 ? steps : steps.reverse()) await step();
      }
      for (const agent of agents) agent.destroy();
      const p95 = percentile(discover, 0.95);
      const anchorP95 = percentile(anchor, 0.95);
      rows.push(
        {
          area,
          measure: `GET /v1/discover, ${queries.length} queries (1–3 title words, 1 in 5 Korean, 1 in 4 with lang): p50`,
          value: ms(percentile(discover, 0.5)),
        },
        { area, measure: 'GET /v1/discover p95', value: ms(p95), target: '≤ 50 ms' },
        { area, measure: 'GET /v1/discover p99 / max', value: `${ms(percentile(discover, 0.99))} / ${ms(Math.max(...discover))}` },
        { area, measure: 'anchor: GET /healthz p95, interleaved', value: ms(anchorP95) },
        { area, measure: 'discover p95 ÷ anchor p95', value: `${(p95 / anchorP95).toFixed(1)}×` },
        { area, measure: 'queries with at least one result', value: `${found} of ${queries.length}` },
        { area, measure: 'load average (1 min) before / after', value: `${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}` },
      );
    } finally {
      await server.stop();
    }
    return rows;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
