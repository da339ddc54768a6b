import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/config.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog } from '../support/factories.js';

const EDITOR = 'https://editor.example.com';

describe('CORS for browser tools (FOLIO_CORS_ORIGINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { FOLIO_CORS_ORIGINS: `${EDITOR}, http://localhost:5173`, FOLIO_PUBLIC_API_URL: 'https://api.example.com/' } });
  });
  afterAll(async () => t.close());

  it('answers a preflight from an allowed origin with the methods and headers the API takes', async () => {
    const res = await fetch(`${t.baseUrl}/v1/posts`, {
      method: 'OPTIONS',
      headers: { origin: EDITOR, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(EDITOR);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-match');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });

  it('lets the allowed origin read answers and their headers, errors included', async () => {
    const blog = await buildBlog(t);
    const ok = await fetch(`${t.baseUrl}/v1/blogs/${blog.id}`, { headers: { origin: EDITOR, authorization: `Bearer ${blog.actor.key}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(EDITOR);
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    expect(ok.headers.get('vary')?.toLowerCase()).toContain('origin');
    const denied = await fetch(`${t.baseUrl}/v1/blogs`, { headers: { origin: EDITOR } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(EDITOR);
  });

  it('gives other origins no CORS headers (their browsers refuse the answer)', async () => {
    const preflight = await fetch(`${t.baseUrl}/v1/posts`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).toBe(404);
    const get = await fetch(`${t.baseUrl}/healthz`, { headers: { origin: 'https://evil.example.com' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('names FOLIO_PUBLIC_API_URL as the OpenAPI server', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
  });
});

describe('without FOLIO_CORS_ORIGINS', () => {
  it('sends no CORS headers and answers OPTIONS as before (404)', async () => {
    const t = await startTestApp();
    try {
      const res = await fetch(`${t.baseUrl}/v1/posts`, { method: 'OPTIONS', headers: { origin: EDITOR, 'access-control-request-method': 'POST' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await t.close();
    }
  });

  it('refuses malformed settings at start-up, naming the variable', () => {
    expect(() => loadConfig({ FOLIO_CORS_ORIGINS: 'https://a.example.com/path' })).toThrow(ConfigError);
    expect(() => loadConfig({ FOLIO_CORS_ORIGINS: 'https://a.example.com/path' })).toThrow(/FOLIO_CORS_ORIGINS/);
    expect(() => loadConfig({ FOLIO_PUBLIC_API_URL: 'ftp://x' })).toThrow(/FOLIO_PUBLIC_API_URL/);
    expect(loadConfig({ FOLIO_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });
});

describe('FOLIO_CORS_ORIGINS=* and /metrics', () => {
  it('answers every origin on the API, but never lets a browser page read /metrics', async () => {
    const t = await startTestApp({ env: { FOLIO_CORS_ORIGINS: '*' } });
    try {
      const api = await fetch(`${t.baseUrl}/v1/openapi.json`, { headers: { origin: EDITOR } });
      expect(api.headers.get('access-control-allow-origin')).toBe('*');
      const metrics = await fetch(`${t.baseUrl}/metrics`, { headers: { origin: EDITOR } });
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('access-control-allow-origin')).toBeNull();
      expect(metrics.headers.get('access-control-expose-headers')).toBeNull();
      const preflight = await fetch(`${t.baseUrl}/metrics`, {
        method: 'OPTIONS',
        headers: { origin: EDITOR, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    } finally {
      await t.close();
    }
  });
});
