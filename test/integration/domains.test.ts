import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, ISO_MS, jobsSince, sortedKeys } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

let hostSeq = 0;
const hostname = (): string => `blog${(hostSeq += 1)}.example.com`;

describe('POST /v1/blogs/:id/domain', () => {
  it('answers 201 with hostname, status, cname_target, instructions and the TXT challenge with its expiry', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    expect(res.status).toBe(201);
    expect(sortedKeys(res.body)).toEqual(['cname_target', 'expires_at', 'hostname', 'instructions', 'last_error', 'status', 'verification']);
    expect(res.body.hostname).toBe(host);
    expect(res.body.status).toBe('pending_verification');
    expect(res.body.cname_target).toBe(`${blog.slug}.localhost`);
    expect(res.body.verification).toEqual({ type: 'TXT', name: `_folio-challenge.${host}`, value: expect.stringMatching(/^folio-verification=[0-9a-f]{32}$/) });
    expect(res.body.last_error).toBeNull();
    // Seven days from registration (the fake clock stands still).
    expect(res.body.expires_at).toMatch(ISO_MS);
    expect(Date.parse(res.body.expires_at) - t.clock.now().getTime()).toBe(7 * 24 * 3600 * 1000);
    expect(res.body.instructions).toContain(`${host} CNAME ${blog.slug}.localhost`);
    expect(res.body.instructions).toContain(`_folio-challenge.${host} TXT ${res.body.verification.value}`);
    expect(res.body.instructions).toContain(res.body.expires_at);
  });

  it('gives every registration its own random token', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const blog = await buildBlog(t);
      tokens.add((await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: 'same.example.com' } })).body.verification.value);
    }
    expect(tokens.size).toBe(5);
  });

  it('shows the hostname as the blog’s custom_domain', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.custom_domain).toBe(host);
    const list = await blog.actor.request('GET', '/v1/blogs');
    expect(list.body.data.find((b: { id: string }) => b.id === blog.id).custom_domain).toBe(host);
  });

  it('answers 409 when the blog already has a domain', async () => {
    const blog = await buildBlog(t);
    const first = hostname();
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: first } });
    expectError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: hostname() } }), 409, 'conflict');
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.hostname).toBe(first);
  });

  it('answers 409 when the hostname is active for another blog, of any account', async () => {
    const owner = await buildBlog(t);
    const host = hostname();
    t.satisfyDomainChallenge((await owner.actor.request('POST', `/v1/blogs/${owner.id}/domain`, { body: { hostname: host } })).body);
    expect((await owner.actor.request('GET', `/v1/blogs/${owner.id}/domain`)).body.status).toBe('active');
    const sameAccount = await buildBlog(t, { actor: owner.actor });
    const otherAccount = await buildBlog(t);
    expectError(await sameAccount.actor.request('POST', `/v1/blogs/${sameAccount.id}/domain`, { body: { hostname: host } }), 409, 'conflict');
    expectError(await otherAccount.actor.request('POST', `/v1/blogs/${otherAccount.id}/domain`, { body: { hostname: host } }), 409, 'conflict');
  });

  const invalid: [string, unknown][] = [
    ['upper case', 'Blog.Example.com'],
    ['a single label', 'localhost'],
    ['a trailing dot label', 'blog.example.com.'],
    ['a label starting with a hyphen', '-blog.example.com'],
    ['an underscore', 'my_blog.example.com'],
    ['a space', 'my blog.example.com'],
    ['a scheme', 'https://blog.example.com'],
    ['a port', 'blog.example.com:8080'],
    ['a path', 'blog.example.com/x'],
    ['an IP address', '192.168.1.10'],
    ['the service domain', 'localhost'],
    ['a name under the service domain', 'evil.localhost'],
    ['unicode', 'bløg.example.com'],
    ['a label over 63 characters', `${'a'.repeat(64)}.example.com`],
    ['a name over 253 characters', `${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.com`],
    ['an empty string', ''],
    ['a number', 42],
    ['null', null],
  ];
  for (const [what, value] of invalid) {
    it(`answers 400 for a hostname with ${what}`, async () => {
      const blog = await buildBlog(t);
      expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: value } }), 'hostname');
      expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`), 404, 'not_found');
    });
  }

  it('answers 400 when hostname is missing or an unknown field is sent', async () => {
    const blog = await buildBlog(t);
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: {} }), 'hostname');
    expectFieldError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: hostname(), cname: 'x' } }), 'cname');
  });
});

describe('GET /v1/blogs/:id/domain', () => {
  it('answers, while pending, hostname, status, cname_target, the challenge of the registration, its expiry and the last check’s error', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    const reg = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      hostname: host,
      status: 'pending_verification',
      cname_target: `${blog.slug}.localhost`,
      verification: reg.body.verification,
      expires_at: reg.body.expires_at,
      last_error: `no CNAME record at ${host}; no TXT record at _folio-challenge.${host}`,
    });
  });

  it('answers 404 when the blog has no domain', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`), 404, 'not_found');
  });

  it('stays pending while the CNAME points elsewhere, even with the right TXT record', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    t.dns.set(host, ['somewhere.else.example']);
    const reg = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    t.txt.set(reg.body.verification.name, [[reg.body.verification.value]]);
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.body.status).toBe('pending_verification');
    expect(res.body.last_error).toBe(`CNAME points at somewhere.else.example, expected ${blog.slug}.localhost`);
  });

  it('stays pending with only the CNAME, or a TXT record of another token or format, and says what is missing', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    t.dns.set(host, [`${blog.slug}.localhost`]);
    const reg = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    const { name, value } = reg.body.verification;
    let res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.body).toMatchObject({ status: 'pending_verification', last_error: `no TXT record at ${name}` });
    const token = value.slice('folio-verification='.length);
    for (const wrong of [`folio-verification=${'a'.repeat(32)}`, token, `folio-verification = ${token}`, `${value}x`]) {
      t.txt.set(name, [[wrong]]);
      res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
      expect(res.body, wrong).toMatchObject({ status: 'pending_verification', last_error: `no TXT record at ${name} is ${value}` });
    }
    // The TXT record on the hostname itself does not count: it must be on _folio-challenge.
    t.txt.set(host, [[value]]);
    t.txt.delete(name);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('pending_verification');
  });

  it('becomes active once the CNAME points at cname_target and the TXT record holds the token; the blog and post URLs then use the domain', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    const reg = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    t.dns.set(host, [`${blog.slug}.localhost.`]);
    t.txt.set(reg.body.verification.name, [['v=spf1 -all'], [reg.body.verification.value]]);
    const before = t.handledJobs.length;
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.body).toEqual({ hostname: host, status: 'active', cname_target: `${blog.slug}.localhost` });
    await t.folio.idle();
    expect(jobsSince(t, before)).toEqual([{ kind: 'site', blogId: blog.id, payload: expect.objectContaining({ hostname: host }) }]);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.url).toBe(`http://${host}/`);
    const post = await buildPost(blog, { title: 'On my domain' });
    expect(post.url).toBe(`http://${host}/on-my-domain`);
  });
});

describe('DELETE /v1/blogs/:id/domain', () => {
  it('answers {deleted: true}; the domain is gone and the hostname is free again', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    const res = await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`), 404, 'not_found');
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.custom_domain).toBeNull();
    const other = await buildBlog(t);
    expect((await other.actor.request('POST', `/v1/blogs/${other.id}/domain`, { body: { hostname: host } })).status).toBe(201);
  });

  it('answers 404 when there is no domain to delete', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`), 404, 'not_found');
  });

  it('re-renders the site when an active domain is removed, and URLs go back to the subdomain', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    t.satisfyDomainChallenge((await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } })).body);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('active');
    await t.folio.idle();
    const before = t.handledJobs.length;
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`);
    // Whole-site work runs in the background, after the request answered.
    await t.folio.idle();
    expect(jobsSince(t, before)).toEqual([{ kind: 'site', blogId: blog.id, payload: expect.objectContaining({ hostname: host }) }]);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.url).toBe(`http://${blog.slug}.localhost:3000/`);
  });
});
