/**
 * `npm run bench -- --only hostile`: the worst event-loop delay the real server (its own
 * process, dist/server/main.js) shows while each pathological input of the hardening issue is
 * created as published, published again, searched and previewed (POST /v1/preview, then a
 * preview link's page), at the API's full 1 MB. The delay is seen
 * from outside: a probe sends GET /healthz on its own keep-alive connection back to back, and a
 * probe's latency beyond its idle baseline is time the event loop was held. The anchor, measured
 * in the same run, is the probe's worst latency while the server is idle.
 */
import { loadavg } from 'node:os';
import { hostileInputs, MIB } from './hostileInputs.js';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';
import { probe } from './harness/healthProbe.js';
import { hostileImageRows } from './hostileImagesBench.js';

const TARGET_MS = 100;

async function timed(baseUrl: string, work: () => Promise<void>): Promise<number> {
  const probing = probe(baseUrl);
  try {
    await work();
  } finally {
    // A publish job may still be running after the answer; its work counts too.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return probing.stop();
}

export async function runHostileBench(): Promise<BenchRow[]> {
  const server = await startBenchServer({ FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn' });
  const rows: BenchRow[] = [];
  try {
    const key = createBenchAccount(server.dataDir);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const blog = (await (
      await fetch(`${server.baseUrl}/v1/blogs`, { method: 'POST', headers, body: JSON.stringify({ slug: 'hostile', name: 'Hostile' }) })
    ).json()) as { id: string };
    const blogHeaders = { ...headers, 'x-blog-id': blog.id };
    const call = async (method: string, path: string, body?: unknown): Promise<number> => {
      const res = await fetch(`${server.baseUrl}${path}`, { method, headers: blogHeaders, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      await res.arrayBuffer();
      return res.status;
    };
    const openPreviewPage = async (slug: string): Promise<void> => {
      const res = await fetch(`${server.baseUrl}/v1/posts/${slug}/preview-link`, { method: 'POST', headers: blogHeaders, body: '{}' });
      const { url } = (await res.json()) as { url: string };
      await (await fetch(`${server.baseUrl}${new URL(url).pathname}`)).arrayBuffer();
    };
    // Warm up (first requests compile code paths and start the worker threads), then the anchor.
    for (let i = 0; i < 3; i++) await call('POST', '/v1/posts', { title: `Warm ${i}`, content: 'Plain words. '.repeat(2000), status: 'published' });
    const idle = await timed(server.baseUrl, () => new Promise((resolve) => setTimeout(resolve, 3000)));
    rows.push({ area: 'hostile', measure: 'anchor: /healthz worst latency, server idle, ms', value: idle.toFixed(0) });

    let worst = { ms: 0, what: '' };
    const statuses: Record<string, number> = {};
    for (const [i, input] of hostileInputs(MIB).entries()) {
      const slug = `hostile-${i}`;
      let status = 0;
      const create = await timed(server.baseUrl, async () => {
        status = await call('POST', '/v1/posts', { title: input.name, slug, content: input.content, status: 'published' });
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
      const publish = status === 201 ? await timed(server.baseUrl, async () => void (await call('POST', `/v1/posts/${slug}/publish`))) : 0;
      const search = await timed(server.baseUrl, async () => void (await call('GET', `/v1/search?q=${encodeURIComponent('hostile post 한국어')}`)));
      // The editor's live preview of the same Markdown, and a preview link's page of the post.
      const preview = await timed(server.baseUrl, async () => void (await call('POST', '/v1/preview', { content_md: input.content })));
      const page = status === 201 ? await timed(server.baseUrl, () => openPreviewPage(slug)) : 0;
      const ms = Math.max(create, publish, search, preview, page);
      if (ms > worst.ms) worst = { ms, what: input.name };
      rows.push({
        area: 'hostile',
        measure: `${input.name} (${status}): create / publish / search / preview / preview page, worst /healthz ms`,
        value: `${create.toFixed(0)} / ${status === 201 ? publish.toFixed(0) : '-'} / ${search.toFixed(0)} / ${preview.toFixed(0)} / ${status === 201 ? page.toFixed(0) : '-'}`,
        target: `≤ ${TARGET_MS}`,
      });
    }
    rows.push({
      area: 'hostile',
      measure: `worst over ${hostileInputs(MIB).length} inputs (${worst.what}), ms`,
      value: worst.ms.toFixed(0),
      target: `≤ ${TARGET_MS}`,
    });
    rows.push({ area: 'hostile', measure: 'worst / idle anchor', value: `${(worst.ms / Math.max(idle, 1)).toFixed(1)}x` });
    rows.push({
      area: 'hostile',
      measure: 'answers by status',
      value: Object.entries(statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', '),
    });
    rows.push(...(await hostileImageRows(server, TARGET_MS)));
    rows.push({ area: 'hostile', measure: 'load average (1 min) at the end', value: loadavg()[0]!.toFixed(2) });
  } finally {
    await server.stop();
  }
  return rows;
}
