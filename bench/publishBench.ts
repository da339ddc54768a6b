import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startS3rver } from './harness/s3rver.js';
import { loadCorpus } from './corpus.js';
import { importCorpus, removeImported, type ImportedBlog } from './importCorpus.js';
import { startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const REBUILD_CHILD = fileURLToPath(new URL('./rebuildChild.js', import.meta.url));
const WARM_RESTARTS = 3;
const RIGHT_AWAY_RESTARTS = 5;
/**
 * Social cards off unless FOLIO_SOCIAL_CARDS says otherwise, in the rebuild and every server:
 * the imported blog has no card drawn, so with cards on its server spends its first hours
 * drawing them (site_cards jobs, about 80 cards a minute here), which `settle` would wait out.
 * The `cards` section and the cards rows of docs/performance.md measure publishing with cards.
 */
const CARDS = { FOLIO_SOCIAL_CARDS: process.env.FOLIO_SOCIAL_CARDS ?? 'off' };

/** The draft every timed publish publishes: 6 KB of Markdown and two tags. */
function benchPost(title: string): { title: string; content: string; tags: string[] } {
  return { title, content: `# Benchmark\n\n${'A paragraph of benchmark text with several words. '.repeat(120)}`, tags: ['performance', 'search'] };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function call(baseUrl: string, blog: ImportedBlog, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${blog.apiKey}`, 'x-blog-id': blog.blogId, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

/**
 * Starts the server on the data dir and waits until the blog has no open publish jobs (the
 * first start of a data dir made by importCorpus re-renders the blog: it records the render
 * fingerprint), then stops it: the next start is a plain restart.
 */
export async function settle(blog: ImportedBlog, env: Record<string, string>): Promise<void> {
  const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...env });
  try {
    for (;;) {
      const status = await call(server.baseUrl, blog, 'GET', `/v1/blogs/${blog.blogId}/publishing`);
      if (status.status === 200 && status.json.pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await server.stop();
  }
}

/**
 * The first publish after a restart of a blog the previous process published into: right away
 * (`waitMs` 0: the server has just answered /healthz, its warm-up has barely begun), or once
 * the warm-up (warmup/warmUp.ts) has loaded what the previous process used.
 */
async function firstPublishAfterRestart(blog: ImportedBlog, waitMs: number): Promise<number> {
  const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...CARDS });
  try {
    // The warm-up runs in the background after listen; a few seconds cover a 10,000-post blog.
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const draft = await call(server.baseUrl, blog, 'POST', '/v1/posts', benchPost(`After a restart ${Date.now()}`));
    const started = performance.now();
    const published = await call(server.baseUrl, blog, 'POST', `/v1/posts/${draft.json.slug}/publish`);
    if (published.status !== 200) throw new Error(`publish answered ${published.status}`);
    return performance.now() - started;
  } finally {
    await server.stop();
  }
}

/** Publish latency: from the API call until it answers, which is when the page is in the store. */
async function measurePublish(blog: ImportedBlog, env: Record<string, string>, samples: number): Promise<number[]> {
  await settle(blog, { ...CARDS, ...env });
  const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', ...CARDS, ...env });
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i += 1) {
      const draft = await call(server.baseUrl, blog, 'POST', '/v1/posts', benchPost(`Benchmark publish ${i} ${Date.now()}`));
      const started = performance.now();
      const published = await call(server.baseUrl, blog, 'POST', `/v1/posts/${draft.json.slug}/publish`);
      times.push(performance.now() - started);
      if (published.status !== 200) throw new Error(`publish answered ${published.status}`);
      const page = await fetch(`${server.baseUrl}/${draft.json.slug}`, {
        headers: { host: `${blog.blogSlug}.localhost:${new URL(server.baseUrl).port}` },
      }).catch(() => null);
      void page;
    }
  } finally {
    await server.stop();
  }
  return times;
}

export async function runPublishBench(
  n: number,
  samples = 100,
  rows: BenchRow[] = [],
  stores: ReadonlySet<string> = new Set(['fs', 's3']),
): Promise<BenchRow[]> {
  const corpus = loadCorpus(n);
  const sizes = [...new Set([100, n])];
  const s3 = await startS3rver({ buckets: sizes.map((size) => `bench-${size}`) });
  // p95 at 100 posts per store: the 10,000-post figure may be at most 1.5 times it.
  const smallP95 = new Map<string, number>();
  const target = (size: number, store: string): string => {
    if (size < 10_000) return '';
    const small = smallP95.get(store);
    return `p95 ≤ 150 ms${small === undefined ? '' : ` and ≤ ${(small * 1.5).toFixed(0)} ms (1.5× 100 posts)`}`;
  };
  try {
    for (const size of sizes) {
      const started = performance.now();
      const blog = await importCorpus(corpus.slice(0, size), `b${size}`);
      try {
        rows.push({ area: 'publish', measure: `import ${size} posts (service layer)`, value: `${((performance.now() - started) / 1000).toFixed(1)} s` });

        const out = execFileSync(process.execPath, [REBUILD_CHILD, blog.dataDir, blog.blogSlug, '--with-search'], {
          maxBuffer: 1 << 20,
          env: { ...process.env, ...CARDS },
        }).toString();
        const rebuild = JSON.parse(out) as { ms: number; objects: number; maxRssMb: number; reindexMs: number | null; maxRssWithReindexMb: number | null };
        rows.push({
          area: 'publish',
          measure: `full rebuild, ${size} posts, fs (${rebuild.objects} objects)`,
          value: `${(rebuild.ms / 1000).toFixed(2)} s`,
          target: size >= 10_000 ? '< 7.4 s' : '',
        });
        rows.push({
          area: 'publish',
          measure: `full rebuild, ${size} posts, peak RSS`,
          value: `${rebuild.maxRssMb.toFixed(0)} MB`,
          target: size >= 10_000 ? '< 1024 MB' : '',
        });
        if (rebuild.reindexMs !== null) {
          rows.push({
            area: 'publish',
            measure: `search reindex from the database (folio search reindex), ${size} posts`,
            value: `${(rebuild.reindexMs / 1000).toFixed(1)} s`,
            target: size >= 10_000 ? '≤ 20 s' : '',
          });
        }
        if (rebuild.maxRssWithReindexMb !== null) {
          rows.push({
            area: 'publish',
            measure: `rebuild then reindex in one process, ${size} posts, peak RSS (the reindex's when above the rebuild's)`,
            value: `${rebuild.maxRssWithReindexMb.toFixed(0)} MB`,
            target: size >= 10_000 ? '< 1024 MB' : '',
          });
        }

        const fsTimes = await measurePublish(blog, {}, samples);
        rows.push({
          area: 'publish',
          measure: `publish p50 / p95, ${size} posts, fs, cards ${CARDS.FOLIO_SOCIAL_CARDS}`,
          value: `${percentile(fsTimes, 50).toFixed(0)} / ${percentile(fsTimes, 95).toFixed(0)} ms`,
          target: target(size, 'fs'),
        });
        if (size === 100) smallP95.set('fs', percentile(fsTimes, 95));
        // The server was just started, and this is the blog's first publish since the import's
        // full rebuild and reindex: besides the restart it pays one-time work (the static
        // index's first delta files, say).
        const steady = percentile(fsTimes.slice(1), 50);
        rows.push({
          area: 'publish',
          measure: `first publish since the rebuild, right after a restart ÷ steady p50, ${size} posts, fs`,
          value: `${fsTimes[0]!.toFixed(0)} ÷ ${steady.toFixed(0)} ms = ${(fsTimes[0]! / steady).toFixed(1)}×`,
        });
        // One sample per restart, so a few restarts: a single one swung between 1.5x and 2.5x.
        const rightAwayRuns: number[] = [];
        for (let i = 0; i < RIGHT_AWAY_RESTARTS; i += 1) rightAwayRuns.push(await firstPublishAfterRestart(blog, 0));
        const rightAway = percentile(rightAwayRuns, 50);
        rows.push({
          area: 'publish',
          measure: `first publish right after a restart ÷ steady p50, ${size} posts, fs (median of ${RIGHT_AWAY_RESTARTS} restarts: ${rightAwayRuns.map((ms) => ms.toFixed(0)).join(', ')} ms)`,
          value: `${rightAway.toFixed(0)} ÷ ${steady.toFixed(0)} ms = ${(rightAway / steady).toFixed(1)}×`,
          target: size >= 10_000 ? '≤ 2×' : '',
        });
        const warmRuns: number[] = [];
        for (let i = 0; i < WARM_RESTARTS; i += 1) warmRuns.push(await firstPublishAfterRestart(blog, 4000));
        const warm = percentile(warmRuns, 50);
        rows.push({
          area: 'publish',
          measure: `first publish after restart, warm-up done ÷ steady p50, ${size} posts, fs (median of ${WARM_RESTARTS} restarts: ${warmRuns.map((ms) => ms.toFixed(0)).join(', ')} ms)`,
          value: `${warm.toFixed(0)} ÷ ${steady.toFixed(0)} ms = ${(warm / steady).toFixed(1)}×`,
          target: size >= 10_000 ? '≤ 2×' : '',
        });

        if (!stores.has('s3')) continue;
        // The hash table describes the folder store; the bucket starts empty.
        const db = new Database(join(blog.dataDir, 'folio.db'));
        db.prepare('DELETE FROM object_hashes').run();
        db.close();
        const s3Times = await measurePublish(
          blog,
          {
            FOLIO_STORAGE: 's3',
            FOLIO_S3_ENDPOINT: s3.endpoint,
            FOLIO_S3_BUCKET: `bench-${size}`,
            AWS_ACCESS_KEY_ID: 'S3RVER',
            AWS_SECRET_ACCESS_KEY: 'S3RVER',
          },
          samples,
        );
        rows.push({
          area: 'publish',
          measure: `publish p50 / p95, ${size} posts, s3rver`,
          value: `${percentile(s3Times, 50).toFixed(0)} / ${percentile(s3Times, 95).toFixed(0)} ms`,
          target: target(size, 's3'),
        });
        if (size === 100) smallP95.set('s3', percentile(s3Times, 95));
      } finally {
        removeImported(blog);
      }
    }
  } finally {
    await s3.stop();
  }
  return rows;
}
