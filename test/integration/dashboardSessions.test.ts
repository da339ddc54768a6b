import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { loginLink, signIn } from '../support/dashboardSession.js';
import { SESSION_LIFETIME_MS, SESSION_TOUCH_INTERVAL_MS } from '../../src/services/sessions.js';
import { LOGIN_LINK_LIFETIME_MS } from '../../src/services/loginLinks.js';

/** Dashboard sessions on /v1 (docs/dashboard.md): one-time links, the cookie, sliding expiry, CSRF. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const HOUR = 3600_000;

describe('one-time sign-in links', () => {
  it('sign the browser in once: a session cookie, then 303 to /dashboard; a second use answers 410 with a page', async () => {
    const url = await loginLink(t);
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/dashboard/sign-in/[A-Za-z0-9_-]{43}$`));
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/dashboard');
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith('folio_session='));
    expect(cookie).toMatch(/^folio_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);

    const again = await fetch(url, { redirect: 'manual' });
    expect(again.status).toBe(410);
    expect(again.headers.get('content-type')).toMatch(/^text\/html/);
    expect(again.headers.getSetCookie()).toEqual([]);
    const page = await again.text();
    expect(page).toContain('It has been used already.');
    expect(page).toContain('<a href="/dashboard/sign-in">');
    expect(again.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(again.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(again.headers.get('cache-control')).toBe('no-store');
  });

  it('expire after 15 minutes (410), and an unknown token answers 404', async () => {
    const url = await loginLink(t);
    t.clock.advance(LOGIN_LINK_LIFETIME_MS);
    const late = await fetch(url, { redirect: 'manual' });
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('It has expired.');
    const unknown = await fetch(`${t.baseUrl}/dashboard/sign-in/${'x'.repeat(43)}`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    const hostile = await fetch(`${t.baseUrl}/dashboard/sign-in/%00%3Cscript%3E`, { redirect: 'manual' });
    expect(hostile.status).toBe(404);
    expect(await hostile.text()).not.toContain('<script>');
  });

  it('can be used once even when two requests race', async () => {
    const url = await loginLink(t);
    const answers = await Promise.all([fetch(url, { redirect: 'manual' }), fetch(url, { redirect: 'manual' }), fetch(url, { redirect: 'manual' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410]);
  });
});

describe('a session on /v1', () => {
  it("acts as its account with full scope; the key's Bearer requests are unaffected", async () => {
    const session = await signIn(t);
    const res = await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(t.accountId);
    const bearer = await t.request('GET', '/v1/account');
    expect(bearer.status).toBe(200);
    const blog = await fetch(`${t.baseUrl}/v1/blogs`, {
      method: 'POST',
      headers: { ...session.writeHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'from-session', name: 'From a session' }),
    });
    expect(blog.status, await blog.clone().text()).toBe(201);
  });

  it('counts its requests against the account (rate limit headers)', async () => {
    const limited = await startTestApp({ env: { FOLIO_RATE_LIMITS: 'on' } });
    try {
      const session = await signIn(limited);
      const viaKey = await limited.request('GET', '/v1/account');
      const viaSession = await fetch(`${limited.baseUrl}/v1/account`, { headers: { cookie: session.cookie } });
      expect(Number(viaSession.headers.get('x-ratelimit-remaining'))).toBe(Number(viaKey.headers.get('x-ratelimit-remaining')) - 1);
    } finally {
      await limited.close();
    }
  });

  it('slides: used within 30 days it lives on, unused for 30 days it ends; the row is written at most once an hour', async () => {
    const session = await signIn(t);
    const get = () => fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } });
    const row = async () => (await t.folio.repos.sessions.listLive(t.accountId, t.clock.now().toISOString())).find((s) => s.id === session.sessionId);
    const created = (await row())!;
    t.clock.advance(SESSION_TOUCH_INTERVAL_MS / 2);
    const early = await get();
    expect(early.status).toBe(200);
    expect(early.headers.getSetCookie()).toEqual([]);
    expect((await row())!.lastUsedAt).toBe(created.lastUsedAt);

    t.clock.advance(SESSION_LIFETIME_MS - HOUR);
    const renewed = await get();
    expect(renewed.status).toBe(200);
    expect(renewed.headers.getSetCookie()[0]).toMatch(/^folio_session=.*Max-Age=2592000/);
    expect((await row())!.lastUsedAt).toBe(t.clock.now().toISOString());
    expect((await row())!.expiresAt).toBe(new Date(t.clock.now().getTime() + SESSION_LIFETIME_MS).toISOString());

    t.clock.advance(SESSION_LIFETIME_MS - 1);
    expect((await get()).status).toBe(200);
    t.clock.advance(SESSION_LIFETIME_MS);
    const ended = await get();
    expect(ended.status).toBe(401);
    expect(((await ended.json()) as { error: string }).error).toBe('unauthorized');
  });

  it('cannot call POST /mcp (agents use keys)', async () => {
    const session = await signIn(t);
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...session.writeHeaders(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
  });

  it('ends with its account: DELETE /v1/account from the session itself', async () => {
    const other = await t.createAccount('creator');
    const session = await signIn(t, other.accountId);
    const res = await fetch(`${t.baseUrl}/v1/account`, {
      method: 'DELETE',
      headers: { ...session.writeHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ confirm: other.accountId }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await t.folio.repos.sessions.listLive(other.accountId, t.clock.now().toISOString())).toEqual([]);
    const after = await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } });
    expect(after.status).toBe(401);
  });
});

describe('housekeeping', () => {
  it("the scheduler's tick deletes expired sessions and links, at most once an hour", async () => {
    const clock = t.clock;
    const session = await signIn(t);
    await loginLink(t);
    await t.folio.tick();
    const count = async (table: string) => (await t.folio.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
    const before = { sessions: await count('sessions'), links: await count('login_links') };
    expect(before.links).toBeGreaterThan(0);
    clock.advance(SESSION_LIFETIME_MS + HOUR);
    await t.folio.tick();
    expect(await count('login_links')).toBe(0);
    expect(await count('sessions')).toBe(0);
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } })).status).toBe(401);
  });
});

describe('CSRF on cookie-authenticated writes', () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${t.baseUrl}/v1/blogs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ slug: `csrf-${Math.random().toString(36).slice(2, 10)}`, name: 'CSRF' }),
    });

  it('refuses a missing token, a wrong token, a foreign Origin, Origin null and Sec-Fetch-Site: cross-site with 403 {error, message}', async () => {
    const session = await signIn(t);
    const cases: Record<string, string>[] = [
      { cookie: session.cookie },
      { cookie: session.cookie, 'x-csrf-token': `${session.csrf.slice(0, -1)}x` },
      { cookie: session.cookie, 'x-csrf-token': '' },
      { ...session.writeHeaders(), origin: 'https://evil.example' },
      { ...session.writeHeaders(), origin: 'null' },
      { cookie: session.cookie, 'x-csrf-token': session.csrf, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe('forbidden');
      expect(body.message).toMatch(/CSRF|cross-/);
    }
    expect((await t.folio.repos.blogs.listByAccount(t.accountId)).some((b) => b.name === 'CSRF')).toBe(false);
  });

  it('accepts the right token from the same origin, or with no Origin at all', async () => {
    const session = await signIn(t);
    expect((await post(session.writeHeaders())).status).toBe(201);
    expect((await post({ cookie: session.cookie, 'x-csrf-token': session.csrf, 'sec-fetch-site': 'same-origin' })).status).toBe(201);
  });

  it('leaves Bearer requests alone, even with a foreign Origin and a cookie beside them', async () => {
    const session = await signIn(t);
    const res = await post({ authorization: `Bearer ${t.key}`, origin: 'https://evil.example', cookie: session.cookie });
    expect(res.status).toBe(201);
  });
});

describe('POST /dashboard/sign-out', () => {
  it('needs the CSRF token, then ends the session and clears the cookie', async () => {
    const session = await signIn(t);
    const refused = await fetch(`${t.baseUrl}/dashboard/sign-out`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
      body: 'csrf=wrong',
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } })).status).toBe(200);

    const res = await fetch(`${t.baseUrl}/dashboard/sign-out`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
      body: `csrf=${encodeURIComponent(session.csrf)}`,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/sign-in');
    expect(res.headers.getSetCookie()[0]).toMatch(/^folio_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } })).status).toBe(401);
  });

  it('refuses an oversized or non-form body with {error, message}', async () => {
    const session = await signIn(t);
    const big = await fetch(`${t.baseUrl}/dashboard/sign-out`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${'a'.repeat(20_000)}`,
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: string }).error).toBe('payload_too_large');
    const json = await fetch(`${t.baseUrl}/dashboard/sign-out`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });
});

describe('Secure cookies under https', () => {
  it('marks the cookie Secure when the public API base is https', async () => {
    const https = await startTestApp({ env: { FOLIO_PUBLIC_API_URL: 'https://api.example.test/v1' } });
    try {
      const link = await loginLink(https);
      const res = await fetch(link, { redirect: 'manual' });
      expect(res.headers.getSetCookie()[0]).toMatch(/; Secure$/);
    } finally {
      await https.close();
    }
  });
});

describe('dashboard pages and assets', () => {
  it('render the shell for a session: CSRF meta, the manifest’s script and style tags, data-page, strict CSP; no session → 303 to sign-in', async () => {
    const session = await signIn(t);
    const res = await fetch(`${t.baseUrl}/dashboard/account`, { headers: { cookie: session.cookie }, redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    const html = await res.text();
    expect(html).toContain(`<meta name="folio-csrf" content="${session.csrf}">`);
    expect(html).toMatch(/<script type="module" src="\/dashboard\/assets\/shell-[\w-]+\.js"><\/script>/);
    expect(html).toMatch(/<script type="module" src="\/dashboard\/assets\/account-[\w-]+\.js"><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/dashboard\/assets\/dashboard-[\w-]+\.css">/);
    expect(html).toContain('<main id="main" data-page="account">');
    expect(html).toContain('<a class="skip-link" href="#main">');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).toMatch(
      /<form method="post" action="\/dashboard\/sign-out" class="sign-out"><input type="hidden" name="csrf" value="[\w-]+"><button type="submit"/,
    );
    expect(html).not.toMatch(/<script>|style="/);

    const script = /src="(\/dashboard\/assets\/account-[\w-]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${t.baseUrl}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${t.baseUrl}/dashboard/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe('not_found');
    const traversal = await fetch(`${t.baseUrl}/dashboard/assets/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);

    const anonymous = await fetch(`${t.baseUrl}/dashboard/account`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/sign-in');
  });
});
