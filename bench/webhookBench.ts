/**
 * `npm run bench -- --only webhooks`: how long after a change commits its webhook reaches the
 * receiver. The real server (its own process) publishes posts one after another; a receiver on
 * loopback in this process verifies each delivery with `standardwebhooks` and notes when it
 * arrived. The change's time is the event's `timestamp` (taken inside the write transaction);
 * both clocks are this machine's. Anchor, same run: a bare HTTP POST of the same size from this
 * process to the same receiver.
 */
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';
import { percentile } from './harness/stats.js';

const POSTS = 200;

export async function runWebhookBench(): Promise<BenchRow[]> {
  const area = 'webhooks';
  let secret = '';
  const latencies: number[] = [];
  let unverified = 0;
  let lastBody = '';
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrived = Date.now();
      const text = Buffer.concat(chunks).toString('utf8');
      lastBody = text;
      if (req.headers['webhook-id']) {
        try {
          new Webhook(secret).verify(text, req.headers as Record<string, string>);
          latencies.push(arrived - Date.parse((JSON.parse(text) as { timestamp: string }).timestamp));
        } catch {
          unverified += 1;
        }
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const server = await startBenchServer({ FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true', FOLIO_RATE_LIMITS: 'off' });
  try {
    const key = createBenchAccount(server.dataDir);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const blog = (await (
      await fetch(`${server.baseUrl}/v1/blogs`, { method: 'POST', headers, body: JSON.stringify({ slug: 'hooks', name: 'Hooks' }) })
    ).json()) as { id: string };
    const hook = (await (
      await fetch(`${server.baseUrl}/v1/blogs/${blog.id}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: hookUrl, events: ['post.published'] }),
      })
    ).json()) as { secret: string };
    secret = hook.secret;
    for (let i = 0; i < POSTS; i++) {
      const res = await fetch(`${server.baseUrl}/v1/posts`, {
        method: 'POST',
        headers: { ...headers, 'x-blog-id': blog.id },
        body: JSON.stringify({ title: `Post ${i}`, content: `Body of post ${i}.`, status: 'published' }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}`);
      await res.arrayBuffer();
    }
    const deadline = Date.now() + 30_000;
    while (latencies.length + unverified < POSTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    // Anchor: the same body POSTed straight to the receiver.
    const anchor: number[] = [];
    for (let i = 0; i < POSTS; i++) {
      const started = performance.now();
      await (await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: lastBody })).arrayBuffer();
      anchor.push(performance.now() - started);
    }
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    return [
      {
        area,
        measure: `change committed → receiver got it, p50 / p95 / max (${latencies.length} of ${POSTS} verified)`,
        value: `${percentile(latencies, 0.5)} / ${percentile(latencies, 0.95)} / ${Math.max(...latencies)} ms`,
        target: `load ${load}`,
      },
      {
        area,
        measure: 'anchor: a bare loopback POST of the same body, p50 / p95',
        value: `${percentile(anchor, 0.5).toFixed(1)} / ${percentile(anchor, 0.95).toFixed(1)} ms`,
      },
      { area, measure: 'deliveries failing signature verification', value: String(unverified), target: '0' },
    ];
  } finally {
    await server.stop();
    receiver.close();
  }
}
