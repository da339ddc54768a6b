/**
 * `folio push` of a folder of generated posts (English and Korean, from the shared corpus)
 * into an empty blog of a real server, then a second push of the same folder (issue 14): the
 * command itself (bin/folio.js) in its own process, timed whole, with its summary line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatPostFile } from '../src/sync/frontMatter.js';
import { loadCorpus } from './corpus.js';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

function run(args: string[], env: Record<string, string>): Promise<{ ms: number; stdout: string; code: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, maxBuffer: 1 << 26 }, (err, stdout) => {
      resolve({ ms: performance.now() - started, stdout, code: err ? 1 : 0 });
    });
  });
}

export async function runSyncBench(posts: number): Promise<BenchRow[]> {
  const area = `push (${posts.toLocaleString('en-US')} posts)`;
  const dir = mkdtempSync(join(tmpdir(), 'folio-push-bench-'));
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn' });
  try {
    for (const post of loadCorpus(posts).slice(0, posts)) {
      // A few generated slugs hold `--`, which the API refuses (push names those files).
      const slug = post.slug.replace(/-{2,}/g, '-');
      const file = formatPostFile({
        title: post.title,
        slug,
        tags: post.tags,
        description: undefined,
        ogImage: undefined,
        status: 'published',
        scheduledAt: undefined,
        content: post.body,
      });
      writeFileSync(join(dir, `${slug}.md`), file);
    }
    const key = createBenchAccount(server.dataDir);
    const res = await fetch(`${server.baseUrl}/v1/blogs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'pushed', name: 'Pushed' }),
    });
    if (!res.ok) throw new Error(`creating the blog answered ${res.status}`);
    const env = { FOLIO_API_URL: server.baseUrl, FOLIO_API_KEY: key };
    const first = await run(['push', dir, '--blog', 'pushed'], env);
    const second = await run(['push', dir, '--blog', 'pushed'], env);
    const line = (out: string): string => out.trim().split('\n').pop() ?? '';
    return [
      {
        area,
        measure: 'first push into an empty blog (creates and publishes every post)',
        value: `${(first.ms / 1000).toFixed(1)} s`,
        target: line(first.stdout),
      },
      { area, measure: 'second push of the same folder', value: `${(second.ms / 1000).toFixed(2)} s`, target: line(second.stdout) },
      {
        area,
        measure: 'load average (1 / 5 min)',
        value: loadavg()
          .slice(0, 2)
          .map((l) => l.toFixed(1))
          .join(' / '),
      },
    ];
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
