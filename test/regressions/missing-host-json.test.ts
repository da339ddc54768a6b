/**
 * Regression (found by test/integration/siteServer.property.test.ts): an HTTP/1.1 request
 * without a Host header is refused by Node itself (`requireHostHeader`, on by default) before
 * Koa sees it: a bare `400 Bad Request` with an empty body and no X-Request-Id, not the
 * `{error, message}` JSON every other error has (decisions.md "Errors").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { sendHostile } from '../support/hostileHttp.js';
import { errorContractOf, expectApiAnswer, type ErrorContract } from '../support/hostileChecks.js';

let t: TestApp;
let port: number;
let contract: ErrorContract;
beforeAll(async () => {
  t = await startTestApp();
  port = Number(new URL(t.baseUrl).port);
  contract = errorContractOf((await t.request('GET', '/v1/openapi.json', { key: null })).body);
});
afterAll(async () => t.close());

describe('an HTTP/1.1 request without a Host header', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/v1/posts'],
    ['POST', '/v1/blogs'],
  ])('%s %s is answered with a 4xx in the JSON error shape, with a request id', async (method, target) => {
    const res = await sendHostile(port, { method, target, headers: [] });
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status, res.text).toBeLessThan(500);
    expectApiAnswer(res, `${method} ${target} without Host`, contract);
    expect(res.json, 'empty body').toBeDefined();
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });
});
