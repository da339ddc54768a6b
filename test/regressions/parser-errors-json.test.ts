/**
 * Regression: requests Node's HTTP parser refuses never reach Koa, and Node answered them with
 * a bare `400 Bad Request` / `431 Request Header Fields Too Large` and an empty body, not the
 * `{error, message}` JSON every other error has (decisions.md "Errors").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, type BuiltBlog } from '../support/factories.js';
import { parseRawResponse, rawExchange, type RawResponse } from '../support/rawHttp.js';

let t: TestApp;
let port: number;
let blog: BuiltBlog;
beforeAll(async () => {
  t = await startTestApp();
  port = Number(new URL(t.baseUrl).port);
  blog = await buildBlog(t);
});
afterAll(async () => t.close());

function expectJsonRefusal(response: RawResponse, status: number, code: string): void {
  expect(response.status, response.raw).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers.connection).toBe('close');
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
  expect(response.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
}

describe('requests the HTTP parser refuses are answered with the JSON error shape', () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'],
    ['a header name with a space', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n'],
    ['a control character in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
    [
      'Content-Length together with Transfer-Encoding',
      'POST /v1/blogs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['two different Content-Length values', 'POST /v1/blogs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
  ])('answers %s with 400 bad_request', async (_name, request) => {
    const { response } = await rawExchange(port, [request]);
    expectJsonRefusal(response, 400, 'bad_request');
    expect(JSON.parse(response.body).message).toMatch(/^malformed HTTP request/);
  });

  it('answers headers over 16 KB with 431 headers_too_large', async () => {
    const { response } = await rawExchange(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectJsonRefusal(response, 431, 'headers_too_large');
  });

  it('answers a request line over 16 KB with 431 headers_too_large', async () => {
    const { response } = await rawExchange(port, [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    expectJsonRefusal(response, 431, 'headers_too_large');
  });

  it('answers a malformed chunk in the body of a request being handled with 400, once', async () => {
    const head = [
      'POST /v1/posts HTTP/1.1',
      'Host: x',
      `Authorization: Bearer ${blog.actor.key}`,
      `X-Blog-Id: ${blog.id}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      '',
      '',
    ].join('\r\n');
    const { response } = await rawExchange(port, [head, '5\r\n{"tit\r\n', 'ZZ\r\n'], 50);
    expectJsonRefusal(response, 400, 'bad_request');
    expect(response.raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('answers chunk extensions over 16 KB in the body of a request being handled with 413 payload_too_large', async () => {
    const head = [
      'POST /v1/blogs HTTP/1.1',
      'Host: x',
      `Authorization: Bearer ${blog.actor.key}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      '',
      '',
    ].join('\r\n');
    const { response } = await rawExchange(port, [head, `2;ext=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`]);
    expectJsonRefusal(response, 413, 'payload_too_large');
  });

  it('answers a pipelined request before a malformed one first, then refuses the malformed one', async () => {
    const { response } = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n']);
    expect(response.status).toBe(200);
    expect(response.body).toBe('{"status":"ok"}');
    const rest = response.raw.slice(response.raw.indexOf('{"status":"ok"}') + '{"status":"ok"}'.length);
    expectJsonRefusal(parseRawResponse(rest), 400, 'bad_request');
  });

  it('keeps serving other connections normally', async () => {
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  });
});
