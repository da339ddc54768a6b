import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { signIn } from '../support/dashboardSession.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { hashPassword, SCRYPT_PARAMS, SIGN_IN_LIMITS, verifyPassword } from '../../src/services/passwords.js';

/** Passwords, the sign-in form and its rate limits, and the /v1 sessions and password operations (docs/dashboard.md). */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_TRUST_PROXY: '1' } });
});
afterAll(async () => t.close());

let counter = 0;
/** An account with an email and a password, set as the operator's CLI does. */
async function personWithPassword(password = 'correct horse battery'): Promise<{ accountId: string; email: string; password: string; key: string }> {
  const { accountId, key } = await t.createAccount('creator');
  const email = `person${++counter}-${process.pid}@example.com`;
  await t.folio.passwords.set(accountId, password, email);
  return { accountId, email, password, key };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
async function postSignIn(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.baseUrl}/dashboard/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.1', ...headers },
    body: form(fields),
    redirect: 'manual',
  });
  return { res, html: await res.text() };
}

describe('password hashing', () => {
  it('stores scrypt$N$r$p$salt$hash with its parameters, a fresh salt each time, and verifies only the same password', async () => {
    const a = await hashPassword('비밀번호는 길게 쓴다');
    const b = await hashPassword('비밀번호는 길게 쓴다');
    expect(a).toMatch(new RegExp(`^scrypt\\$${SCRYPT_PARAMS.N}\\$${SCRYPT_PARAMS.r}\\$${SCRYPT_PARAMS.p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{86}$`));
    expect(a).not.toBe(b);
    expect(await verifyPassword('비밀번호는 길게 쓴다', a)).toBe(true);
    // The same text typed as decomposed jamo (NFD) is the same password.
    expect(await verifyPassword('비밀번호는 길게 쓴다'.normalize('NFD'), a)).toBe(true);
    expect(await verifyPassword('비밀번호는 길게 쓴다 ', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('refuses malformed or costly stored hashes without throwing', async () => {
    const good = await hashPassword('correct horse battery');
    const parts = good.split('$');
    for (const bad of [
      '',
      'plain',
      `scrypt$${2 ** 24}$8$1$${parts[4]}$${parts[5]}`,
      `scrypt$1000$8$1$${parts[4]}$${parts[5]}`,
      `argon2$${parts.slice(1).join('$')}`,
    ]) {
      expect(await verifyPassword('correct horse battery', bad)).toBe(false);
    }
  });
});

describe('GET/POST /dashboard/sign-in', () => {
  it('shows a labelled form; the right email and password start a session (303 /dashboard)', async () => {
    const get = await fetch(`${t.baseUrl}/dashboard/sign-in`);
    expect(get.status).toBe(200);
    const page = await get.text();
    expect(page).toContain('<label for="email">Email</label>');
    expect(page).toContain('<label for="password">Password</label>');
    expect(page).not.toContain('folio-csrf');
    const person = await personWithPassword();
    const { res } = await postSignIn({ email: person.email.toUpperCase(), password: person.password });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard');
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    const account = await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie } });
    expect(((await account.json()) as { id: string }).id).toBe(person.accountId);
  });

  it('answers a wrong password and an unknown email with the same page', async () => {
    const person = await personWithPassword();
    const wrongPassword = await postSignIn({ email: person.email, password: 'not the password' }, { 'x-forwarded-for': '198.51.100.2' });
    const unknownEmail = await postSignIn({ email: `nobody-${process.pid}@example.com`, password: person.password }, { 'x-forwarded-for': '198.51.100.2' });
    expect(wrongPassword.res.status).toBe(401);
    expect(unknownEmail.res.status).toBe(401);
    const alert = (html: string) => /<p role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(alert(wrongPassword.html)).toBe('The email or the password is wrong.');
    expect(alert(unknownEmail.html)).toBe(alert(wrongPassword.html));
    expect(wrongPassword.res.headers.getSetCookie()).toEqual([]);
  });

  it('refuses a form sent from another site', async () => {
    const person = await personWithPassword();
    const { res } = await postSignIn({ email: person.email, password: person.password }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('limits attempts per account: past the budget even the right password gets 429 with Retry-After, from any address', async () => {
    const person = await personWithPassword();
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) {
      // Half of them hashed (a wrong password), half not (an empty one): both count.
      const { res } = await postSignIn({ email: person.email, password: i % 2 === 0 ? `wrong ${i}` : '' }, { 'x-forwarded-for': `203.0.113.${i + 1}` });
      expect(res.status).toBe(401);
    }
    const { res, html } = await postSignIn({ email: person.email, password: person.password }, { 'x-forwarded-for': '203.0.113.200' });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(html).toContain('Too many sign-in attempts');
    t.clock.advance(SIGN_IN_LIMITS.windowMs);
    expect((await postSignIn({ email: person.email, password: person.password }, { 'x-forwarded-for': '203.0.113.200' })).res.status).toBe(303);
  });

  it('limits attempts per client address, whatever the emails', async () => {
    const address = '192.0.2.77';
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      // An empty password is refused without hashing, and counted all the same.
      const { res } = await postSignIn({ email: `guess${i}@example.com`, password: '' }, { 'x-forwarded-for': address });
      expect(res.status).toBe(401);
    }
    const person = await personWithPassword();
    const { res } = await postSignIn({ email: person.email, password: person.password }, { 'x-forwarded-for': address });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    t.clock.advance(SIGN_IN_LIMITS.windowMs);
  });
});

describe('/v1/account/sessions and /v1/account/password', () => {
  it('lists the sessions with the current one marked, and revokes one (another account’s is 404)', async () => {
    const person = await personWithPassword();
    const first = await signIn(t, person.accountId, 'Browser One');
    // Newest first needs two instants: the test clock stands still otherwise.
    t.clock.advance(1000);
    const second = await signIn(t, person.accountId, 'Browser Two');
    const list = await t.request('GET', '/v1/account/sessions', { key: null, headers: { cookie: second.cookie } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((s: { user_agent: string; current: boolean }) => [s.user_agent, s.current])).toEqual([
      ['Browser Two', true],
      ['Browser One', false],
    ]);
    const stranger = await t.request('DELETE', `/v1/account/sessions/${first.sessionId}`);
    expect(stranger.status).toBe(404);
    const revoke = await t.request('DELETE', `/v1/account/sessions/${first.sessionId}`, { key: null, headers: second.writeHeaders() });
    expect(revoke.status, revoke.text).toBe(200);
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: first.cookie } })).status).toBe(401);
    const viaKey = await t.request('GET', '/v1/account/sessions', { key: person.key });
    expect(viaKey.body.data.map((s: { current: boolean }) => s.current)).toEqual([false]);
  });

  it('changes the password with the current one, ending every other session; the narrow key and a wrong current one are refused', async () => {
    const person = await personWithPassword();
    const here = await signIn(t, person.accountId);
    const elsewhere = await signIn(t, person.accountId);
    const missing = await t.request('PUT', '/v1/account/password', { key: null, headers: here.writeHeaders(), body: { new_password: 'a brand new password' } });
    expect(missing.status).toBe(400);
    const wrong = await t.request('PUT', '/v1/account/password', {
      key: null,
      headers: here.writeHeaders(),
      body: { current_password: 'not it at all', new_password: 'a brand new password' },
    });
    expect(wrong.status).toBe(403);
    const short = await t.request('PUT', '/v1/account/password', {
      key: null,
      headers: here.writeHeaders(),
      body: { current_password: person.password, new_password: 'short' },
    });
    expect(short.status).toBe(400);
    const ok = await t.request('PUT', '/v1/account/password', {
      key: null,
      headers: here.writeHeaders(),
      body: { current_password: person.password, new_password: 'a brand new password' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ updated: true, ended_sessions: 1 });
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: here.cookie } })).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: elsewhere.cookie } })).status).toBe(401);
    expect((await postSignIn({ email: person.email, password: 'a brand new password' }, { 'x-forwarded-for': '198.51.100.9' })).res.status).toBe(303);

    const blog = await t.request('POST', '/v1/blogs', { key: person.key, body: { slug: `pw-${process.pid}-${counter}`, name: 'Narrow' } });
    const narrow = await t.request('POST', `/v1/blogs/${blog.body.id}/api-keys`, { key: person.key, body: { name: 'narrow', scopes: ['keys:manage'] } });
    const refused = await t.request('PUT', '/v1/account/password', {
      key: narrow.body.key,
      body: { current_password: 'a brand new password', new_password: 'another new password' },
    });
    expect(refused.status).toBe(403);
  });

  it('the operator’s set-password ends every session; the CLI prints login links', async () => {
    const person = await personWithPassword();
    const session = await signIn(t, person.accountId);
    const change = await t.folio.passwords.set(person.accountId, 'set by the operator');
    expect(change).toEqual({ endedSessions: 1 });
    expect((await fetch(`${t.baseUrl}/v1/account`, { headers: { cookie: session.cookie } })).status).toBe(401);
    const cli = await runCliCaptured(['account', 'login-link', person.accountId, '--json'], {
      ...t.cliEnv,
      FOLIO_PUBLIC_API_URL: `${t.baseUrl}/v1`,
    });
    expect(cli.code, cli.stderr).toBe(0);
    const { url } = JSON.parse(cli.stdout) as { url: string };
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/dashboard/sign-in/`));
    const opened = await fetch(url, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const unknown = await runCliCaptured(['account', 'login-link', 'no-such-account'], t.cliEnv);
    expect(unknown.code).toBe(2);
  });
});

describe('browsers on the API host', () => {
  it('GET / and unknown /dashboard pages send a browser without a session to sign in; programs keep JSON', async () => {
    const browser = await fetch(`${t.baseUrl}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/dashboard/sign-in');
    const program = await fetch(`${t.baseUrl}/`, { redirect: 'manual' });
    expect(program.status).toBe(404);
    expect(((await program.json()) as { error: string }).error).toBe('not_found');
    const page = await fetch(`${t.baseUrl}/dashboard/blogs/x/nothing-here`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).toBe(303);
    const session = await signIn(t);
    const signedIn = await fetch(`${t.baseUrl}/`, { headers: { accept: 'text/html', cookie: session.cookie }, redirect: 'manual' });
    expect(signedIn.headers.get('location')).toBe('/dashboard');
  });
});
