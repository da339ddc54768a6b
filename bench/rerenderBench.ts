/**
 * `npm run bench -- --only rerender`: publishes while a blog is rendered in full, as after an
 * upgrade that changed the renderer (the `site` job the server queues at start, every page
 * written again). The blog's recorded object hashes are deleted and a `renderer_changed` job
 * recorded, as reRenderAfterUpgrade does; the server is started, and a client publishes a post
 * every PAUSE_MS until the job is done. Each publish's wait is what a writer meets during an
 * upgrade's re-render (before 2026-12-03 it waited for the whole job). The anchor: the same
 * server's publishes once the job is done, the same way, in the same run.
 *
 * A second pass does it again as after an upgrade that also changed what the search index takes
 * of a post: the job then rebuilds both search indexes after the render, and publishes get in
 * during that too (before 2026-12-03 they waited for it).
 *
 * The blog: `--posts` corpus posts imported and rebuilt (default 10,000), or a data dir of one
 * blog given as `FOLIO_BENCH_RERENDER_DATA=/dir` (its object hashes are deleted, its pages kept).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { CorpusPost } from './corpus.js';
import { importCorpus, removeImported } from './importCorpus.js';
import { startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const CLI = fileURLToPath(new URL('../src/cliMain.js', import.meta.url));
const ENV = { FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', FOLIO_SOCIAL_CARDS: 'off' };
/** A writer's pause between two publishes. */
const PAUSE_MS = 500;
/** Publishes after the job, for the anchor. */
const AFTER = 30;
/** The longest re-render waited for. */
const MAX_WAIT_MS = 15 * 60_000;

interface Blog {
  dataDir: string;
  blogId: string;
  posts: number;
  headers: Record<string, string>;
}

/**
 * Makes the data dir look like one a build that rendered other bytes left: another render
 * fingerprint recorded, no stamp of the CLI, and no recorded hash of the blog's objects. The
 * server, stopped now, queues the blog's `renderer_changed` job at its next start, as after an
 * upgrade, and that job writes every page; with `searchText`, another search text version too,
 * so the job is `search_text_changed` and reindexes the blog after the render.
 */
function lookUpgraded(dataDir: string, searchText: boolean): { blogId: string; accountId: string; posts: number } {
  const db = new Database(`${dataDir}/folio.db`);
  try {
    const blog = db.prepare<[], { id: string; account_id: string }>('SELECT id, account_id FROM blogs ORDER BY created_at LIMIT 1').get()!;
    const posts = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM posts WHERE blog_id = ? AND status = 'published'").get(blog.id)!.n;
    db.transaction(() => {
      db.prepare('DELETE FROM object_hashes WHERE blog_id = ?').run(blog.id);
      db.prepare("UPDATE settings SET value = 'an-older-build' WHERE key = 'render_fingerprint'").run();
      db.prepare("DELETE FROM settings WHERE key = 'rendered_outside_server'").run();
      if (searchText) db.prepare("UPDATE settings SET value = 'an-older-version' WHERE key = 'search_text_version'").run();
    })();
    return { blogId: blog.id, accountId: blog.account_id, posts };
  } finally {
    db.close();
  }
}

/** Starts the server once and waits for its jobs, so it has recorded what it renders with. */
async function settle(dataDir: string): Promise<void> {
  const server = await startBenchServer({ ...ENV, FOLIO_DATA_DIR: dataDir });
  try {
    const deadline = performance.now() + MAX_WAIT_MS;
    while (performance.now() < deadline) {
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const pending = /^folio_publish_jobs_pending(?:\{[^}]*\})? (\S+)/m.exec(metrics);
      if (!pending || Number(pending[1]) === 0) return;
      await sleep(1000);
    }
  } finally {
    await server.stop();
  }
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function publish(baseUrl: string, blog: Blog, title: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/posts`, {
    method: 'POST',
    headers: blog.headers,
    body: JSON.stringify({ title, content: 'Written while the blog is rendered.', status: 'published' }),
  });
  await res.text();
  if (res.status !== 201) throw new Error(`a publish answered ${res.status}`);
  return performance.now() - started;
}

async function siteJobOpen(baseUrl: string, blog: Blog): Promise<boolean> {
  const body = (await (await fetch(`${baseUrl}/v1/blogs/${blog.blogId}/publishing`, { headers: blog.headers })).json()) as { jobs: { kind: string }[] };
  return body.jobs.some((job) => job.kind === 'site');
}

export async function runRerenderBench(corpus: () => CorpusPost[]): Promise<BenchRow[]> {
  const given = process.env.FOLIO_BENCH_RERENDER_DATA;
  const imported = given ? null : await importCorpus(corpus(), 'rerender');
  const dataDir = given ?? imported!.dataDir;
  try {
    if (imported)
      execFileSync(process.execPath, [CLI, 'site', 'rebuild', 'rerender'], { env: { ...process.env, ...ENV, FOLIO_DATA_DIR: dataDir }, stdio: 'ignore' });
    await settle(dataDir);
    const rows = await measure(dataDir, false);
    await settle(dataDir);
    return [...rows, ...(await measure(dataDir, true))];
  } finally {
    if (imported) removeImported(imported);
  }
}

/** One upgrade's job (the re-render, and with `searchText` the reindex after it), with publishes throughout. */
async function measure(dataDir: string, searchText: boolean): Promise<BenchRow[]> {
  const what = searchText ? 'the re-render and reindex an upgrade of the search text queues' : 'the re-render an upgrade queues (every page written)';
  const queued = lookUpgraded(dataDir, searchText);
  const out = execFileSync(process.execPath, [CLI, 'account', 'create-key', queued.accountId, '--json'], {
    env: { ...process.env, FOLIO_DATA_DIR: dataDir },
  });
  const key = (JSON.parse(out.toString()) as { api_key: string }).api_key;
  const blog: Blog = {
    dataDir,
    blogId: queued.blogId,
    posts: queued.posts,
    headers: { authorization: `Bearer ${key}`, 'x-blog-id': queued.blogId, 'content-type': 'application/json' },
  };
  const load = loadavg()[0]!.toFixed(1);
  const server = await startBenchServer({ ...ENV, FOLIO_DATA_DIR: dataDir });
  try {
    const started = performance.now();
    let done: number | null = null;
    const watching = (async () => {
      while (performance.now() - started < MAX_WAIT_MS && (await siteJobOpen(server.baseUrl, blog))) await sleep(100);
      done = performance.now() - started;
    })();
    const during: number[] = [];
    while (done === null) {
      during.push(await publish(server.baseUrl, blog, `During the re-render ${during.length}`));
      await sleep(PAUSE_MS);
    }
    await watching;
    const after: number[] = [];
    for (let i = 0; i < AFTER; i++) {
      after.push(await publish(server.baseUrl, blog, `After the re-render ${i}`));
      await sleep(PAUSE_MS);
    }
    const [d, a] = [[...during].sort((x, y) => x - y), [...after].sort((x, y) => x - y)];
    const f = (ms: number) => ms.toFixed(0);
    return [
      {
        area: 'rerender',
        measure: `${blog.posts} posts: ${what}, wall (load average ${load} → ${loadavg()[0]!.toFixed(1)})`,
        value: `${((done ?? 0) / 1000).toFixed(1)} s`,
      },
      {
        area: 'rerender',
        measure: `${blog.posts} posts: ${searchText ? 'with the reindex, ' : ''}publishes during it (one every ${PAUSE_MS} ms), p50 / p95 / max (the first: right after the start)`,
        value: `${during.length} publishes: ${f(quantile(d, 0.5))} / ${f(quantile(d, 0.95))} / ${f(d.at(-1)!)} ms (first ${f(during[0]!)} ms)`,
        target: `the same server after it, ${AFTER} publishes: ${f(quantile(a, 0.5))} / ${f(quantile(a, 0.95))} ms; p95 ${(quantile(d, 0.95) / quantile(a, 0.95)).toFixed(2)}×`,
      },
    ];
  } finally {
    await server.stop();
  }
}
