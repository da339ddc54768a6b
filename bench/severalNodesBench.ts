/**
 * `npm run bench -- --only nodes`: one, two and three Folio nodes on one PostgreSQL database and one
 * store, on this machine (issue #32). The point is no regression and correctness, not speed-up:
 * every node shares the same two cores. Each node has its own data dir whose `public/` (the
 * folder store) is the same directory, so a page any node writes is every node's. Three blogs;
 * measured per node count: GET /v1/posts/:slug throughput (one wrk per node at once, summed),
 * publish p95 and search p95, with the requests routed two ways:
 * - by blog, as deploy/several-nodes/Caddyfile does (`lb_policy header X-Blog-Id`): a blog's
 *   requests go to one node while it is up;
 * - spread: a blog's consecutive publishes land on different nodes (a balancer in round robin).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCorpus, type CorpusPost } from './corpus.js';
import { wrk } from './apiReadBench.js';
import { startPostgres } from './harness/postgres.js';
import { percentile } from './harness/stats.js';
import { createBenchAccount, startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const AREA = 'PostgreSQL, several nodes on one machine';
const BLOGS = 3;
/** Posts seeded per blog. */
const SEED = 100;
const PUBLISHES = 45;
const SEARCHES = 150;
const WRK_SECONDS = 4;
/** Publishes through a new node before it is measured: its first ones load code, workers and the blog's state. */
const WARM_UP = 5;

interface Node {
  server: BenchServer;
}

type Routing = 'by blog' | 'spread';

interface Figures {
  nodes: number;
  routing: Routing;
  rps: number;
  publishP95: number;
  searchP95: number;
}

interface Cluster {
  key: string;
  blogIds: string[];
  nodes: Node[];
}

async function call(cluster: Cluster, node: Node, blog: number, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${node.server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${cluster.key}`, 'x-blog-id': cluster.blogIds[blog]!, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${node.server.baseUrl} ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A node's data dir whose folder store is the shared one. */
function dataDirSharing(publicDir: string): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-bench-node-'));
  symlinkSync(publicDir, join(dataDir, 'public'), 'dir');
  return dataDir;
}

async function measure(cluster: Cluster, corpus: readonly CorpusPost[], offset: number, words: readonly string[], routing: Routing): Promise<Figures> {
  const { nodes } = cluster;
  // Publish i goes to blog i % BLOGS; by blog, always through that blog's node; spread, its next
  // publish through the next node.
  const nodeFor = (i: number): Node => nodes[(routing === 'by blog' ? i % BLOGS : Math.floor(i / BLOGS)) % nodes.length]!;
  const reads = await Promise.all(
    nodes.map(async (node, n) => {
      const blog = n % BLOGS;
      const first = (await call(cluster, node, blog, 'GET', '/v1/posts?per_page=1')) as { data: { slug: string }[] };
      return wrk(
        `${node.server.baseUrl}/v1/posts/${first.data[0]!.slug}`,
        { Authorization: `Bearer ${cluster.key}`, 'X-Blog-Id': cluster.blogIds[blog]! },
        WRK_SECONDS,
      );
    }),
  );
  if (reads.some((read) => read.non2xx > 0)) throw new Error('non-2xx answers to GET /v1/posts/:slug');
  const publishMs: number[] = [];
  for (let i = 0; i < PUBLISHES; i++) {
    const post = corpus[offset + i]!;
    const started = performance.now();
    await call(cluster, nodeFor(i), i % BLOGS, 'POST', '/v1/posts', {
      title: post.title,
      content: post.body,
      tags: post.tags.slice(0, 10),
      status: 'published',
    });
    publishMs.push(performance.now() - started);
  }
  const searchMs: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const started = performance.now();
    await call(cluster, nodeFor(i), i % BLOGS, 'GET', `/v1/search?q=${encodeURIComponent(words[i % words.length]!)}`);
    searchMs.push(performance.now() - started);
  }
  return {
    nodes: nodes.length,
    routing,
    rps: reads.reduce((sum, read) => sum + read.rps, 0),
    publishP95: percentile(publishMs, 0.95),
    searchP95: percentile(searchMs, 0.95),
  };
}

/** Words of the seeded posts' titles: every search finds something. */
function searchWords(corpus: readonly CorpusPost[]): string[] {
  const words = new Set<string>();
  for (const post of corpus.slice(0, SEED * BLOGS))
    for (const word of post.title.split(/\s+/)) if (word.length >= 4 && /^[\p{L}]+$/u.test(word)) words.add(word);
  return [...words];
}

export async function runSeveralNodesBench(): Promise<BenchRow[]> {
  const corpus = loadCorpus(SEED * BLOGS + 6 * PUBLISHES + 3 * WARM_UP * BLOGS);
  const postgres = await startPostgres();
  const publicDir = mkdtempSync(join(tmpdir(), 'folio-bench-public-'));
  mkdirSync(publicDir, { recursive: true });
  const nodes: Node[] = [];
  const dirs: string[] = [];
  try {
    const url = await postgres.createDatabase();
    const env = { FOLIO_RATE_LIMITS: 'off', FOLIO_DATABASE_URL: url };
    const start = async (): Promise<Node> => {
      const dataDir = dataDirSharing(publicDir);
      dirs.push(dataDir);
      const node = { server: await startBenchServer({ ...env, FOLIO_DATA_DIR: dataDir }) };
      nodes.push(node);
      return node;
    };
    const firstNode = await start();
    const cluster: Cluster = { key: createBenchAccount(firstNode.server.dataDir, env), blogIds: [], nodes: [firstNode] };
    for (let blog = 0; blog < BLOGS; blog++) {
      const created = (await fetch(`${firstNode.server.baseUrl}/v1/blogs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: `nodes-bench-${blog}`, name: `Nodes bench ${blog}` }),
      }).then((res) => res.json())) as { id: string };
      cluster.blogIds.push(created.id);
      for (const post of corpus.slice(blog * SEED, (blog + 1) * SEED)) {
        await call(cluster, firstNode, blog, 'POST', '/v1/posts', { title: post.title, content: post.body, tags: post.tags.slice(0, 10), status: 'published' });
      }
    }
    const words = searchWords(corpus);
    const figures: Figures[] = [];
    let offset = SEED * BLOGS;
    for (let count = 1; count <= 3; count++) {
      while (cluster.nodes.length < count) {
        const node = await start();
        cluster.nodes.push(node);
        // Warmed as a node that has been serving for a while: every blog published through it.
        for (let i = 0; i < WARM_UP * BLOGS; i++) {
          const post = corpus[corpus.length - 1 - (cluster.nodes.length - 1) * WARM_UP * BLOGS - i]!;
          await call(cluster, node, i % BLOGS, 'POST', '/v1/posts', {
            title: post.title,
            content: post.body,
            tags: post.tags.slice(0, 10),
            status: 'published',
          });
        }
      }
      for (const routing of count === 1 ? (['by blog'] as const) : (['by blog', 'spread'] as const)) {
        figures.push(await measure(cluster, corpus, offset, words, routing));
        offset += PUBLISHES;
      }
    }
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    const one = figures[0]!;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    return [
      { area: AREA, measure: `${BLOGS} blogs of ${SEED} posts; load ${load}`, value: '', target: '' },
      ...figures.map((f) => ({
        area: AREA,
        measure: `${f.nodes} node${f.nodes > 1 ? 's' : ''}${f.nodes > 1 ? `, ${f.routing}` : ''}: GET /v1/posts/:slug ${Math.round(f.rps)} req/s; publish p95 ${f.publishP95.toFixed(1)} ms; search p95 ${f.searchP95.toFixed(1)} ms`,
        value:
          f === one ? 'anchor' : `req/s ${ratio(f.rps, one.rps)}, publish ${ratio(f.publishP95, one.publishP95)}, search ${ratio(f.searchP95, one.searchP95)}`,
        target: f === one ? '' : 'no regression (same cores)',
      })),
    ];
  } finally {
    for (const node of nodes) await node.server.stop();
    await postgres.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    rmSync(publicDir, { recursive: true, force: true });
  }
}
