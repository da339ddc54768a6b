import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DatabaseUnavailableError } from '../../../src/db/sql/sqlClient.js';
import { errorHandler } from '../../../src/http/middleware/errorHandler.js';
import type { AppState } from '../../../src/http/state.js';
import { captureLog } from '../../support/capturedLog.js';

/** The error handler in front of a handler that throws `err`, on a loopback port. */
async function answerTo(err: unknown): Promise<Response> {
  const app = new Koa<AppState>();
  app.use(errorHandler(captureLog().logger));
  app.use(() => {
    throw err;
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

describe('errorHandler and the database', () => {
  it('answers 503 with Retry-After when the database cannot answer now, on either database, saying whether it is busy or out of reach', async () => {
    for (const [err, retryAfter, message] of [
      [new DatabaseUnavailableError('PostgreSQL is unavailable: Connection terminated unexpectedly'), '5', 'the database cannot be reached; try again shortly'],
      [
        new DatabaseUnavailableError('PostgreSQL is unavailable: could not serialize access', { reason: 'busy' }),
        '2',
        'the database is busy; try again shortly',
      ],
      [Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), '2', 'the database is busy; try again shortly'],
    ] as const) {
      const res = await answerTo(err);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(retryAfter);
      expect(await res.json()).toMatchObject({ error: 'service_unavailable', message });
    }
  });

  it('answers 500 for any other database error, naming only the request id', async () => {
    const res = await answerTo(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('duplicate key');
  });
});
