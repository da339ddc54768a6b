/**
 * `npm run bench -- --only postgres`: PostgreSQL ÷ SQLite on one node (issue #32; target ≤ 1.5×
 * each). The same server build twice, once on SQLite in its data dir and once with
 * FOLIO_DATABASE_URL on a PostgreSQL cluster started here on loopback (bench/harness/postgres.ts),
 * both seeded with the same posts through the API, measured in alternating rounds:
 * GET /v1/posts/:slug throughput (wrk), publish latency (a published post created through the
 * API, answered once its pages are written) and search latency (GET /v1/search).
 */
import { loadavg } from 'node:os';
import { loadCorpus, type CorpusPost } from './corpus.js';
import { wrk } from './apiReadBench.js';
import { startPostgres } from './harness/postgres.js';
import { percentile } from './harness/stats.js';
import { createBenchAccount, startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const AREA = 'PostgreSQL ÷ SQLite, one node';
const SEED = 200;
const ROUNDS = 4;
const PUBLISHES_PER_ROUND = 15;
const SEARCHES_PER_ROUND = 50;

interface Target {
  label: 'sqlite' | 'postgres';
  server: BenchServer;
  key: string;
  blogId: string;
  publishMs: number[];
  searchMs: number[];
  rps: number[];
}

async function call(target: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${target.server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.key}`, 'x-blog-id': target.blogId, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${target.label} ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function prepare(label: Target['label'], env: Record<string, string>, corpus: readonly CorpusPost[]): Promise<Target> {
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'off', ...env });
  const key = createBenchAccount(server.dataDir, env);
  const target: Target = { label, server, key, blogId: '', publishMs: [], searchMs: [], rps: [] };
  target.blogId = ((await call(target, 'POST', '/v1/blogs', { slug: 'pg-bench', name: 'PostgreSQL bench' })) as { id: string }).id;
  for (const post of corpus.slice(0, SEED)) {
    await call(target, 'POST', '/v1/posts', { title: post.title, content: post.body, tags: post.tags.slice(0, 10), status: 'published' });
  }
  return target;
}

async function round(target: Target, corpus: readonly CorpusPost[], round: number, words: readonly string[]): Promise<void> {
  const first = (await call(target, 'GET', '/v1/posts?per_page=1')) as { data: { slug: string }[] };
  const slug = first.data[0]!.slug;
  const read = await wrk(`${target.server.baseUrl}/v1/posts/${slug}`, { Authorization: `Bearer ${target.key}`, 'X-Blog-Id': target.blogId }, 4);
  if (read.non2xx > 0) throw new Error(`${target.label}: ${read.non2xx} non-2xx answers`);
  target.rps.push(read.rps);
  for (let i = 0; i < PUBLISHES_PER_ROUND; i++) {
    const post = corpus[SEED + round * PUBLISHES_PER_ROUND + i]!;
    const started = performance.now();
    await call(target, 'POST', '/v1/posts', { title: post.title, content: post.body, tags: post.tags.slice(0, 10), status: 'published' });
    target.publishMs.push(performance.now() - started);
  }
  for (let i = 0; i < SEARCHES_PER_ROUND; i++) {
    const q = words[(round * SEARCHES_PER_ROUND + i) % words.length]!;
    const started = performance.now();
    await call(target, 'GET', `/v1/search?q=${encodeURIComponent(q)}`);
    target.searchMs.push(performance.now() - started);
  }
}

/** Words that occur in the seeded posts' titles: every search finds something. */
function searchWords(corpus: readonly CorpusPost[]): string[] {
  const words = new Set<string>();
  for (const post of corpus.slice(0, SEED)) for (const word of post.title.split(/\s+/)) if (word.length >= 4 && /^[\p{L}]+$/u.test(word)) words.add(word);
  return [...words];
}

export async function runPostgresBench(): Promise<BenchRow[]> {
  const corpus = loadCorpus(1000);
  const postgres = await startPostgres();
  const targets: Target[] = [];
  try {
    targets.push(await prepare('sqlite', {}, corpus));
    targets.push(await prepare('postgres', { FOLIO_DATABASE_URL: await postgres.createDatabase() }, corpus));
    const words = searchWords(corpus);
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      for (const target of r % 2 === 0 ? targets : [...targets].reverse()) await round(target, corpus, r, words);
    }
    const [sqlite, pg] = targets as [Target, Target];
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    const p = (values: number[], q: number) => percentile(values, q);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const rps = (t: Target) => p(t.rps, 0.5);
    return [
      {
        area: AREA,
        measure: `${SEED} posts seeded; ${ROUNDS} alternating rounds; load ${load}`,
        value: `SQLite / PostgreSQL ${Math.round(rps(sqlite))} / ${Math.round(rps(pg))} req/s`,
        target: '',
      },
      {
        area: AREA,
        measure: 'GET /v1/posts/:slug throughput, SQLite ÷ PostgreSQL (wrk -t1 -c50, medians)',
        value: ratio(rps(sqlite), rps(pg)),
        target: '≤ 1.5×',
      },
      {
        area: AREA,
        measure: `publish p95, PostgreSQL ÷ SQLite (${pg.publishMs.length} each: ${ms(p(pg.publishMs, 0.95))} / ${ms(p(sqlite.publishMs, 0.95))})`,
        value: ratio(p(pg.publishMs, 0.95), p(sqlite.publishMs, 0.95)),
        target: '≤ 1.5×',
      },
      {
        area: AREA,
        measure: `search p95, PostgreSQL ÷ SQLite (${pg.searchMs.length} each: ${ms(p(pg.searchMs, 0.95))} / ${ms(p(sqlite.searchMs, 0.95))})`,
        value: ratio(p(pg.searchMs, 0.95), p(sqlite.searchMs, 0.95)),
        target: '≤ 1.5×',
      },
    ];
  } finally {
    for (const target of targets) await target.server.stop();
    await postgres.stop();
  }
}
