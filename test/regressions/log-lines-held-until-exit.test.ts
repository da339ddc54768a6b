/**
 * Regression (issue 10): pino's buffered destination (4 KB minimum write) held the "folio
 * listening" line and every request line of a quiet server until shutdown, 20 minutes in the
 * report, so a new user thought `npm start` had hung. Lines must reach stdout within a second.
 * The server runs as `npm start` runs it (dist/server/main.js) with stdout on a pipe.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

/** Generous against a loaded CI machine; the buffer held these lines for ever. */
const PROMPT_MS = 1_500;

let server: SpawnedServer | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

describe('log lines of a quiet server', () => {
  it('prints the listening line at once and each request line within a second, while the server runs', async () => {
    server = await spawnServer();
    const answered = performance.now();
    const listening = await server.waitForLine((line) => line.json?.msg === 'folio listening', PROMPT_MS);
    expect(listening.at - answered).toBeLessThan(PROMPT_MS);
    expect(listening.json).toMatchObject({ level: 30, port: server.port, host: '127.0.0.1' });

    // One request at a time, each line awaited before the next: nothing else fills the buffer.
    for (let i = 0; i < 3; i++) {
      const requestId = randomUUID();
      const sent = performance.now();
      const res = await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-request-id': requestId } });
      expect(res.status).toBe(200);
      const line = await server.waitForLine((l) => l.json?.requestId === requestId, PROMPT_MS + 1_000);
      expect(line.at - sent).toBeLessThan(PROMPT_MS);
      expect(line.json).toMatchObject({ msg: 'request', method: 'GET', path: '/healthz', status: 200 });
    }
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
