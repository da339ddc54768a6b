/**
 * SIGTERM and SIGINT (issue 10, item 4): the server stops accepting connections, lets requests
 * in flight finish with their normal answer, closes everything, writes its last log line and
 * exits 0; the wait is bounded (FOLIO_SHUTDOWN_TIMEOUT); a second signal exits at once. The
 * server runs as `npm start` runs it, in its own process.
 *
 * The request in flight is a 1 MB Markdown table post: its rendering takes seconds on a worker
 * thread, and /metrics (folio_heavy_tasks_running) tells when it has started.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectionRefused, spawnServer, type SpawnedServer } from '../support/spawnedServer.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';

let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

/** About 1 MB of a 500-column table: seconds of rendering, well inside the content limit. */
function slowContent(): string {
  const columns = 500;
  const row = `|${Array.from({ length: columns }, (_, i) => ` c${i} `).join('|')}|\n`;
  const parts = [row, `|${Array.from({ length: columns }, () => '---').join('|')}|\n`];
  let size = parts.join('').length;
  while (size + row.length < 1_000_000) {
    parts.push(row);
    size += row.length;
  }
  return parts.join('');
}

interface InFlight {
  response: Promise<{ status: number; body: unknown } | { error: string }>;
}

/** Creates a blog, then starts the slow post and resolves once its rendering runs on a worker. */
async function startSlowRequest(s: SpawnedServer): Promise<InFlight> {
  const headers = { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' };
  const blogRes = await fetch(`${s.baseUrl}/v1/blogs`, { method: 'POST', headers, body: JSON.stringify({ slug: 'tables', name: 'Tables' }) });
  expect(blogRes.status).toBe(201);
  const blog = (await blogRes.json()) as { id: string };
  const response = fetch(`${s.baseUrl}/v1/posts`, {
    method: 'POST',
    headers: { ...headers, 'x-blog-id': blog.id },
    body: JSON.stringify({ title: 'A wide table', slug: 'wide-table', content: slowContent(), status: 'published' }),
  }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
    (err: unknown) => ({ error: err instanceof Error ? String((err.cause as { code?: string } | undefined)?.code ?? err.message) : String(err) }),
  );
  const deadline = performance.now() + 20_000;
  for (;;) {
    const text = await (await fetch(`${s.baseUrl}/metrics`)).text();
    if (/^folio_heavy_tasks_running [1-9]/m.test(text)) return { response };
    const settled = await Promise.race([response, new Promise((resolve) => setTimeout(() => resolve(null), 20))]);
    if (settled !== null) throw new Error(`the slow request finished before it was seen running: ${JSON.stringify(settled)}`);
    if (performance.now() > deadline) throw new Error('the slow request never reached a worker thread');
  }
}

const lastLine = (s: SpawnedServer) => s.lines[s.lines.length - 1]?.json;

describe('stopping the server with a signal', () => {
  it('SIGTERM: refuses new connections, finishes the request in flight, closes and exits 0 with a last log line', async () => {
    server = await spawnServer(await freshDatabaseEnv());
    const s = server;
    const inFlight = await startSlowRequest(s);
    const signalled = performance.now();
    s.child.kill('SIGTERM');
    await s.waitForLine((line) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('shutting down'), 5_000);
    expect(await connectionRefused(s.port)).toBe(true);

    const answer = await inFlight.response;
    expect(answer).toMatchObject({ status: 201, body: { slug: 'wide-table', status: 'published' } });
    const exit = await s.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(20_000);
    expect(lastLine(s)).toMatchObject({ msg: 'folio stopped' });
    // The request's own log line made it out before the end.
    expect(s.lines.some((line) => line.json?.msg === 'request' && line.json.path === '/v1/posts' && line.json.status === 201)).toBe(true);
    expect(s.lines.some((line) => line.json?.msg?.toString().startsWith('shutdown bound reached'))).toBe(false);
  }, 90_000);

  it('cuts what is still running at FOLIO_SHUTDOWN_TIMEOUT and exits', async () => {
    server = await spawnServer({ FOLIO_SHUTDOWN_TIMEOUT: '1', ...(await freshDatabaseEnv()) });
    const s = server;
    const inFlight = await startSlowRequest(s);
    const signalled = performance.now();
    s.child.kill('SIGTERM');
    const exit = await s.exited;
    // One second of bound, then closing: far sooner than the seconds the rendering needs.
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(5_000);
    expect(await inFlight.response).toHaveProperty('error');
    expect(s.lines.some((line) => line.json?.msg?.toString().startsWith('shutdown bound reached'))).toBe(true);
    expect(lastLine(s)).toMatchObject({ msg: 'folio stopped' });
  }, 90_000);

  it('exits at once on a second signal', async () => {
    server = await spawnServer(await freshDatabaseEnv());
    const s = server;
    const inFlight = await startSlowRequest(s);
    s.child.kill('SIGINT');
    await s.waitForLine((line) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('shutting down'), 5_000);
    const second = performance.now();
    s.child.kill('SIGINT');
    const exit = await s.exited;
    expect(exit.code).toBe(130);
    expect(exit.at - second).toBeLessThan(3_000);
    expect(await inFlight.response).toHaveProperty('error');
    expect(lastLine(s)).toMatchObject({ msg: 'second signal: exiting without waiting' });
  }, 90_000);
});
