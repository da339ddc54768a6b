/**
 * Regression (found by test/integration/routes.property.test.ts): a request whose `Expect`
 * header is anything but `100-continue`, even empty, is answered by Node itself before Koa sees
 * it: a bare `417 Expectation Failed` with an empty body and no X-Request-Id, not the
 * `{error, message}` JSON every other error has (decisions.md "Errors"). createHttpServer has a
 * `checkContinue` listener but none for `checkExpectation`, so Node's default answer goes out.
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

describe('an Expect header other than 100-continue', () => {
  it.each([
    ['GET /healthz', ''],
    ['GET /v1/posts', 'foo'],
    ['POST /v1/blogs', '200-ok'],
  ])('on %s (Expect: %j) is refused with the JSON error shape and a request id', async (route, expectValue) => {
    const [method = '', target = ''] = route.split(' ');
    const res = await sendHostile(port, {
      method,
      target,
      headers: [
        ['Host', 'x'],
        ['Expect', expectValue],
      ],
    });
    expect(res.status, res.text).toBe(417);
    expectApiAnswer(res, `${route} Expect: ${expectValue}`, contract);
    expect(res.json, 'empty body').toBeDefined();
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });

  it('still lets `Expect: 100-continue` through to the route', async () => {
    const res = await sendHostile(port, {
      method: 'GET',
      target: '/healthz',
      headers: [
        ['Host', 'x'],
        ['Expect', '100-continue'],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
  });
});
