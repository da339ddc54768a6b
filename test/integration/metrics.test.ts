/**
 * GET /metrics (issue 10, item 4): Prometheus text format, request counts and latency by route
 * pattern, publish job latency and queue depth, store errors, search latency and index cache
 * memory, process series; FOLIO_METRICS_TOKEN; nothing tenant-specific in the output.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { buildBlog, buildPost, expectError } from '../support/factories.js';
import { FaultyStore } from '../support/faultyStore.js';
import { startRecordingServer } from '../support/recordingServer.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';
import { join } from 'node:path';
import { testTempDir } from '../support/tempDir.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of the text exposition format (comments skipped). */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with that name and (at least) those labels; undefined when none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples match ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<{ text: string; samples: Sample[] }> {
  const res = await t.request('GET', '/metrics', { key: null, headers });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return { text: res.text, samples: parseSamples(res.text) };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /metrics', () => {
  it('counts requests by route pattern, times publish jobs and searches, and reports the queue, the cache and the process', async () => {
    t = await startTestApp();
    const blog = await buildBlog(t, { slug: 'herons' });
    const post = await buildPost(blog, { title: 'On herons', slug: 'grey-heron', content: 'Herons stand still in the shallows.', status: 'published' });
    for (let i = 0; i < 3; i++) expect((await blog.actor.request('GET', `/v1/posts/${post.slug}`, { blogId: blog.id })).status).toBe(200);
    expect((await blog.actor.request('GET', '/v1/posts/no-such-post', { blogId: blog.id })).status).toBe(404);
    expect((await blog.actor.request('GET', '/v1/search?q=herons', { blogId: blog.id })).body.pagination.total).toBe(1);
    // Refused by jsonBody before the router ran: still counted under its route's pattern.
    expect((await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, raw: 'title=x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await t.request('GET', '/no/such/path', { key: null })).status).toBe(404);
    expect((await visit(t.baseUrl, 'herons.localhost:3000', '/grey-heron')).status).toBe(200);
    expect((await visit(t.baseUrl, 'herons.localhost:3000', '/not-a-post')).status).toBe(404);
    await t.folio.idle();

    const { text, samples } = await scrape(t);
    const requests = (labels: Record<string, string>) => sampleValue(samples, 'folio_http_requests_total', labels);
    expect(requests({ method: 'GET', route: '/v1/posts/:slug', status: '200' })).toBe(3);
    expect(requests({ method: 'GET', route: '/v1/posts/:slug', status: '404' })).toBe(1);
    expect(requests({ method: 'POST', route: '/v1/posts', status: '201' })).toBe(1);
    expect(requests({ method: 'POST', route: '/v1/posts', status: '415' })).toBe(1);
    expect(requests({ method: 'GET', route: '/v1/search', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: 'site', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: 'site', status: '404' })).toBe(1);
    const latency = { method: 'GET', route: '/v1/posts/:slug', status_class: '2xx' };
    expect(sampleValue(samples, 'folio_http_request_duration_seconds_count', latency)).toBe(3);
    expect(sampleValue(samples, 'folio_http_request_duration_seconds_sum', latency)).toBeGreaterThan(0);
    expect(sampleValue(samples, 'folio_http_request_duration_seconds_bucket', { ...latency, le: '+Inf' })).toBe(3);

    // The blog's creation rendered its site (a `site` job), the post a `post` job.
    expect(sampleValue(samples, 'folio_publish_job_duration_seconds_count', { kind: 'post', outcome: 'done' })).toBe(1);
    expect(sampleValue(samples, 'folio_publish_job_duration_seconds_sum', { kind: 'post', outcome: 'done' })).toBeGreaterThan(0);
    expect(sampleValue(samples, 'folio_publish_jobs_pending')).toBe(0);
    expect(sampleValue(samples, 'folio_search_duration_seconds_count')).toBe(1);
    expect(sampleValue(samples, 'folio_search_index_cache_blogs')).toBe(1);
    expect(sampleValue(samples, 'folio_search_index_cache_bytes')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'folio_heavy_workers')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'folio_heavy_tasks_waiting')).toBe(0);
    expect(sampleValue(samples, 'folio_store_errors_total')).toBeUndefined();
    expect(text).toContain('# TYPE folio_store_errors_total counter');
    expect(text).toContain('# TYPE folio_cdn_purge_errors_total counter');
    expect(sampleValue(samples, 'folio_cdn_purge_errors_total')).toBeUndefined();
    // Process series, event loop lag among them.
    expect(sampleValue(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // CPU is counted from when prom-client loaded (this first scrape loaded it): some work, then
    // a second scrape must show it.
    const cpuBefore = sampleValue(samples, 'process_cpu_user_seconds_total')!;
    const until = performance.now() + 50;
    while (performance.now() < until) createHash('sha256').update('spin').digest();
    expect(sampleValue((await scrape(t)).samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(cpuBefore);

    // Nothing that names a tenant: no slug, id, key or account.
    for (const secret of [blog.slug, blog.id, post.slug, post.id, blog.actor.key, blog.actor.accountId, t.key, t.accountId, 'herons.localhost']) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it('counts what was observed before prom-client loaded (the first scrape loads it) and after, once each', async () => {
    t = await startTestApp();
    const blog = await buildBlog(t);
    const post = await buildPost(blog, { status: 'published' });
    const read = async () => expect((await blog.actor.request('GET', `/v1/posts/${post.slug}`, { blogId: blog.id })).status).toBe(200);
    const reads = async () => sampleValue((await scrape(t!)).samples, 'folio_http_requests_total', { method: 'GET', route: '/v1/posts/:slug', status: '200' });
    await read();
    await read();
    expect(await reads()).toBe(2);
    await read();
    expect(await reads()).toBe(3);
    // Loading again (main.ts's warm-up after a scrape already did) neither resets nor replays.
    await t.folio.metrics.load();
    expect(await reads()).toBe(3);
  });

  it('counts store errors by operation and failed jobs by outcome, and shows the waiting job in the queue', async () => {
    const dataDir = testTempDir('folio-metrics-');
    const store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
    t = await startTestApp({ store });
    const blog = await buildBlog(t);
    await t.folio.idle();
    store.down = true;
    await buildPost(blog, { status: 'published' });
    await t.folio.idle();

    const { samples } = await scrape(t);
    expect(sampleValue(samples, 'folio_store_errors_total', { operation: 'put' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'folio_publish_job_duration_seconds_count', { kind: 'post', outcome: 'failed' })).toBe(1);
    expect(sampleValue(samples, 'folio_publish_jobs_pending')).toBe(1);
  });

  it('counts failed CDN purges by provider', async () => {
    const cache = await startRecordingServer({ anyMethod: true });
    cache.respond = () => ({ status: 503 });
    try {
      t = await startTestApp({ env: { FOLIO_CDN: 'http-purge', FOLIO_CDN_PURGE_URL: cache.url } });
      const blog = await buildBlog(t);
      await t.folio.idle();
      await buildPost(blog, { status: 'published' });
      const { samples } = await scrape(t);
      expect(sampleValue(samples, 'folio_cdn_purge_errors_total', { provider: 'http-purge' })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(samples, 'folio_publish_jobs_pending')).toBeGreaterThanOrEqual(1);
    } finally {
      await cache.close();
    }
  });

  it('answers only the bearer of FOLIO_METRICS_TOKEN when it is set', async () => {
    const token = 'metrics-token-0123456789abcdef';
    t = await startTestApp({ env: { FOLIO_METRICS_TOKEN: token } });
    const none = await t.request('GET', '/metrics', { key: null });
    expectError(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.text).not.toContain('folio_http');
    expectError(await t.request('GET', '/metrics', { key: null, headers: { authorization: `Bearer ${token}x` } }), 401, 'unauthorized');
    expectError(await t.request('GET', '/metrics', { key: null, headers: { authorization: `Basic ${token}` } }), 401, 'unauthorized');
    // An API key is not the metrics token.
    expectError(await t.request('GET', '/metrics'), 401, 'unauthorized');
    const { samples } = await scrape(t, { authorization: `Bearer ${token}` });
    expect(sampleValue(samples, 'folio_http_requests_total', { route: '/metrics', status: '401' })).toBe(4);
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
    expect(doc.paths['/metrics'].get.security).toEqual([{ metricsToken: [] }]);
  });

  it('is open without a token, and never served under a blog’s host', async () => {
    t = await startTestApp();
    await scrape(t);
    await buildBlog(t, { slug: 'quiet' });
    const onBlog = await visit(t.baseUrl, 'quiet.localhost:3000', '/metrics');
    expect(onBlog.status).toBe(404);
    expect(onBlog.text).not.toContain('folio_http');
  });
});
