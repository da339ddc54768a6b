/**
 * `npm run bench -- --only soak [--soak-seconds N] [--soak-posts 10000,50000]`: memory at rest
 * and under use (issue 31, item 3), per blog size, on one real server (dist/server/main.js):
 *
 * - at rest: its RSS at the first answer, after the warm-up and after it rested (memoryAtRest.ts),
 *   against the bare Koa + better-sqlite3 anchor on the same database in the same run (target
 *   ≤ 1.5×); the server runs with npm start's variables (serverProcess.ts startScriptEnv), the
 *   anchor once without and once with them;
 * - under use: then `--soak-seconds` (default 300) of searches (two clients) and publishes (one
 *   client creating published posts), its RSS every 30 s with the search cache's estimate (from
 *   GET /metrics), and the growth after the first minute against what the caches may still take.
 *
 * A data dir per size is made from the corpus (importCorpus.ts, then `folio site rebuild`), or
 * reused: `FOLIO_BENCH_SOAK_DATA=10000=/dir,50000=/dir2` (a dir with one blog, its corpus posts).
 * Social cards are off: drawing 50,000 cards in the background is a different measurement.
 * The server runs once until no job is left (what it re-renders after a command's rebuild), and
 * is asked one search and one publish, so its next start warms that blog, as after a deploy.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadCorpus, type CorpusPost } from './corpus.js';
import { importCorpus, removeImported } from './importCorpus.js';
import { bareKoaRss, serverAtRest } from './memoryAtRest.js';
import { startBenchServer, startScriptEnv } from './serverProcess.js';
import { percentile } from './harness/stats.js';
import type { BenchRow } from './table.js';

const CLI = fileURLToPath(new URL('../src/cliMain.js', import.meta.url));
const ENV = { FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', FOLIO_SOCIAL_CARDS: 'off' };
const REST_AFTER_S = 20;
const SAMPLE_MS = 30_000;
const MB = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');

interface Target {
  dataDir: string;
  blogId: string;
  key: string;
  imported: boolean;
}

/** The data dir of `posts` posts, its blog, and a new key of the blog's account. */
async function prepare(posts: number, corpus: CorpusPost[]): Promise<Target> {
  const given = new Map((process.env.FOLIO_BENCH_SOAK_DATA ?? '').split(',').map((pair) => pair.split('=') as [string, string]));
  let dataDir = given.get(String(posts));
  const imported = !dataDir;
  if (!dataDir) {
    dataDir = (await importCorpus(corpus, 'soak')).dataDir;
    execFileSync(process.execPath, [CLI, 'site', 'rebuild', 'soak'], { env: { ...process.env, ...ENV, FOLIO_DATA_DIR: dataDir }, stdio: 'ignore' });
  }
  const db = new Database(`${dataDir}/folio.db`, { readonly: true });
  const blog = db.prepare<[], { id: string; account_id: string }>('SELECT id, account_id FROM blogs ORDER BY created_at LIMIT 1').get()!;
  db.close();
  const out = execFileSync(process.execPath, [CLI, 'account', 'create-key', blog.account_id, '--json'], { env: { ...process.env, FOLIO_DATA_DIR: dataDir } });
  return { dataDir, blogId: blog.id, key: (JSON.parse(out.toString()) as { api_key: string }).api_key, imported };
}

async function metric(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** The answer's status, its body read (and dropped) so the connection is reused. */
async function statusOf(res: Response): Promise<number> {
  await res.text();
  return res.status;
}

function api(baseUrl: string, target: Target) {
  const headers = { authorization: `Bearer ${target.key}`, 'x-blog-id': target.blogId, 'content-type': 'application/json' };
  return {
    search: (q: string) => fetch(`${baseUrl}/v1/search?q=${encodeURIComponent(q)}`, { headers }).then(statusOf),
    publish: (post: CorpusPost, slug: string) =>
      fetch(`${baseUrl}/v1/posts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: post.title, slug, content: post.body, tags: post.tags.slice(0, 3), status: 'published' }),
      }).then(statusOf),
  };
}

/** Runs the server until no publish job is left, then one search and one publish, and stops it. */
async function settle(target: Target, corpus: CorpusPost[]): Promise<void> {
  const server = await startBenchServer({ ...ENV, FOLIO_DATA_DIR: target.dataDir });
  try {
    const deadline = Date.now() + 30 * 60_000;
    while ((await metric(server.baseUrl, 'folio_publish_jobs_pending')) > 0 && Date.now() < deadline) await sleep(2000);
    const client = api(server.baseUrl, target);
    await client.search(corpus[0]!.title.split(/\s+/)[0]!);
    await client.publish(corpus[1]!, `settle-${Date.now()}`);
  } finally {
    await server.stop();
  }
}

async function soakOne(posts: number, seconds: number): Promise<BenchRow[]> {
  const area = `soak (${posts.toLocaleString('en')} posts)`;
  const rows: BenchRow[] = [];
  const corpus = loadCorpus(posts);
  const target = await prepare(posts, corpus);
  try {
    await settle(target, corpus);
    const loadAtRest = load();
    const rest = await serverAtRest({ ...ENV, FOLIO_DATA_DIR: target.dataDir }, REST_AFTER_S);
    const { server } = rest;
    try {
      const bare = await bareKoaRss(target.dataDir, target.blogId);
      // The server runs with npm start's variables (glibc's malloc settings); the anchor, as the
      // issue names it, with none. What those variables alone do to the anchor, for comparison:
      const shipped = startScriptEnv();
      const bareShipped = Object.keys(shipped).length > 0 ? await bareKoaRss(target.dataDir, target.blogId, shipped) : bare;
      rows.push({
        area,
        measure: `RSS at the first answer / after the warm-up; load ${loadAtRest}`,
        value: `${MB(rest.firstAnswer)} / ${MB(rest.warm)}`,
        target: `bare Koa ${MB(bare)}`,
      });
      rows.push({
        area,
        measure: `RSS at rest (FOLIO_REST_AFTER=${REST_AFTER_S}) / bare Koa + better-sqlite3 on the same database`,
        value: `${MB(rest.rested)} / ${MB(bare)} = ${(rest.rested / bare).toFixed(2)}×`,
        target: '≤ 1.5×',
      });
      rows.push({
        area,
        measure: `RSS at rest / bare Koa with npm start's variables too (${Object.entries(shipped)
          .map(([name, value]) => `${name}=${value}`)
          .join(' ')})`,
        value: `${MB(rest.rested)} / ${MB(bareShipped)} = ${(rest.rested / bareShipped).toFixed(2)}×`,
      });
      rows.push({ area, measure: 'after the warm-up / bare Koa (before this change the server stayed here)', value: `${(rest.warm / bare).toFixed(2)}×` });

      // Under use: two clients searching, one publishing, for `seconds`.
      const client = api(server.baseUrl, target);
      const until = Date.now() + seconds * 1000;
      const counts = { search: 0, publish: 0, failed: 0 };
      // Each answered request's time, so a memory setting's cost in latency shows beside its RSS.
      const took = { search: [] as number[], publish: [] as number[] };
      const timed = async (kind: 'search' | 'publish', request: () => Promise<number>): Promise<number> => {
        const started = performance.now();
        const status = await request().catch(() => 0);
        took[kind].push(performance.now() - started);
        return status;
      };
      let state = posts;
      const rand = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
      const pick = (): CorpusPost => corpus[Math.floor(rand() * corpus.length)]!;
      const searcher = async (): Promise<void> => {
        while (Date.now() < until) {
          const words = pick()
            .title.split(/\s+/)
            .slice(0, 1 + Math.floor(rand() * 2));
          const status = await timed('search', () => client.search(words.join(' ')));
          counts[status === 200 ? 'search' : 'failed']++;
          await sleep(20);
        }
      };
      const publisher = async (): Promise<void> => {
        for (let i = 0; Date.now() < until; i++) {
          const status = await timed('publish', () => client.publish(pick(), `soak-${Date.now()}-${i}`));
          counts[status === 201 ? 'publish' : 'failed']++;
          await sleep(250);
        }
      };
      const loadAtStart = load();
      const began = Date.now();
      const work = Promise.all([searcher(), searcher(), publisher()]);
      const samples: { at: number; rss: number; cache: number; heap: number; heapTotal: number }[] = [];
      while (Date.now() < until) {
        await sleep(Math.min(SAMPLE_MS, until - Date.now()));
        samples.push({
          at: Date.now() - began,
          rss: await server.rss(),
          cache: await metric(server.baseUrl, 'folio_search_index_cache_bytes'),
          heap: await metric(server.baseUrl, 'nodejs_heap_size_used_bytes'),
          heapTotal: await metric(server.baseUrl, 'nodejs_heap_size_total_bytes'),
        });
      }
      await work;
      for (const s of samples) {
        const sec = Math.round(s.at / 1000);
        rows.push({
          area,
          measure: `RSS (JS heap used / committed; search cache estimate) at ${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, '0')}`,
          value: `${MB(s.rss)} (${MB(s.heap)} / ${MB(s.heapTotal)}; ${MB(s.cache)})`,
        });
      }
      const first = samples.find((s) => s.at >= 59_000) ?? samples[0]!;
      const after = samples.filter((s) => s.at > first.at);
      const peak = Math.max(first.rss, ...after.map((s) => s.rss));
      const last = samples[samples.length - 1]!;
      // What a cache could still take after the first minute: the search cache's own growth
      // (its estimate), plus a tenth for the collector's slack.
      const allowed = Math.max(0, last.cache - first.cache) + first.rss / 10;
      rows.push({
        area,
        measure: 'RSS growth after the first minute: peak / last minus the 1:00 sample',
        value: `${MB(peak - first.rss)} / ${MB(last.rss - first.rss)}`,
        target: `≤ ${MB(allowed)} (search cache growth + 10%): ${last.rss - first.rss <= allowed ? 'met' : 'not met'}`,
      });
      rows.push({
        area,
        measure: `requests in ${seconds} s; load at start / end`,
        value: `${counts.search} searches, ${counts.publish} publishes, ${counts.failed} failed; ${loadAtStart}; ${load()}`,
      });
      const ms = (values: number[], p: number): string => `${percentile(values, p).toFixed(0)}`;
      rows.push({
        area,
        measure: 'search / publish p50 / p95 under the soak',
        value: `${ms(took.search, 0.5)} / ${ms(took.search, 0.95)} ms; ${ms(took.publish, 0.5)} / ${ms(took.publish, 0.95)} ms`,
      });
    } finally {
      await server.stop();
    }
  } finally {
    if (target.imported) removeImported({ dataDir: target.dataDir, blogSlug: 'soak', apiKey: target.key, blogId: target.blogId });
  }
  return rows;
}

export async function runMemorySoakBench(opts: { seconds: number; sizes: number[] }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const posts of opts.sizes) rows.push(...(await soakOne(posts, opts.seconds)));
  return rows;
}
