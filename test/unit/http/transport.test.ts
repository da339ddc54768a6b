import { describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from '../../../src/http/httpServer.js';
import { validate } from '../../../src/http/middleware/validate.js';
import { createLogger } from '../../../src/lib/logger.js';

describe('createHttpServer', () => {
  it('keeps idle connections longer than load balancers (65 s) and bounds slow requests', () => {
    const server = createHttpServer(() => undefined, createLogger('silent'));
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeout);
    expect(server.requestTimeout).toBe(120_000);
    expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
  });
});

describe('query integer parameters', () => {
  it('must declare a maximum, so no digit string can reach SQLite as 1e20', () => {
    const unbounded = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } };
    expect(() => validate('query', unbounded)).toThrow(/needs a maximum/);
    const bounded = { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 10 } } };
    expect(() => validate('query', bounded)).not.toThrow();
  });
});
