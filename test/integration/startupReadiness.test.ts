/**
 * A server answers as soon as it listens, whatever catch-up work it finds: jobs a crash or an
 * upgrade left pending (a whole-site re-render of every blog can take minutes) run in the
 * background. Here the catch-up job cannot finish at all while the S3 store is frozen (s3rver
 * stopped with SIGSTOP): the server must still answer, and finish the job once the store is back.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverHandle } from '../../bench/harness/s3rver.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';
import { spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

const started: SpawnedServer[] = [];
let s3: S3rverHandle | null = null;
afterAll(async () => {
  if (s3) process.kill(s3.pid, 'SIGCONT');
  for (const server of started) await server.cleanup();
  await s3?.stop();
});

const waitUntil = async (check: () => Promise<boolean>, ms: number, what: string): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('start-up catch-up', () => {
  it('never delays readiness: a server whose pending re-render waits on a frozen store answers at once', async () => {
    s3 = await startS3rver({ buckets: ['site'] });
    const env = { FOLIO_STORAGE: 's3', FOLIO_S3_BUCKET: 'site', FOLIO_S3_ENDPOINT: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const first = await spawnServer({ ...env, ...(await freshDatabaseEnv()) });
    started.push(first);
    const api = (server: SpawnedServer, method: string, path: string, body?: unknown, blogId?: string) =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const blog = (await (await api(first, 'POST', '/v1/blogs', { slug: 'ready', name: 'Ready' })).json()) as { id: string };
    expect((await api(first, 'POST', '/v1/posts', { title: 'Live', content: 'Text.', status: 'published' }, blog.id)).status).toBe(201);
    await waitUntil(
      async () => ((await (await api(first, 'GET', `/v1/blogs/${blog.id}/publishing`)).json()) as { pending: number }).pending === 0,
      15_000,
      'the first publish did not finish',
    );
    first.child.kill('SIGTERM');
    await first.exited;

    // A plan change records a whole-site re-render job for the blog and renders nothing itself.
    const accountId = /Account: (\S+)/.exec(first.lines.map((l) => l.text).join('\n'))![1]!;
    const plan = await runCliCaptured(['account', 'set-plan', accountId, 'scale'], first.cliEnv);
    expect(plan.code, plan.stderr).toBe(0);

    process.kill(s3.pid, 'SIGSTOP');
    const restarted = await spawnServer({ ...env, ...first.cliEnv });
    started.push(restarted);
    expect((await fetch(`${restarted.baseUrl}/healthz`)).status).toBe(200);
    const status = (await (await api(restarted, 'GET', `/v1/blogs/${blog.id}/publishing`)).json()) as { pending: number };
    expect(status.pending).toBeGreaterThanOrEqual(1); // the re-render is still waiting on the store

    process.kill(s3.pid, 'SIGCONT');
    await waitUntil(
      async () => ((await (await api(restarted, 'GET', `/v1/blogs/${blog.id}/publishing`)).json()) as { pending: number; failed: number }).pending === 0,
      30_000,
      'the catch-up re-render did not finish once the store was back',
    );
  }, 90_000);
});
