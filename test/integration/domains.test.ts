import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildBlog, buildPost, expectError, expectFieldError, jobsSince, sortedKeys } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

let hostSeq = 0;
const hostname = (): string => `blog${(hostSeq += 1)}.example.com`;

describe('POST /v1/blogs/:id/domain', () => {
  it('answers 201 with exactly hostname, status, cname_target and instructions', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    expect(res.status).toBe(201);
    expect(sortedKeys(res.body)).toEqual(['cname_target', 'hostname', 'instructions', 'status']);
    expect(res.body.hostname).toBe(host);
    expect(res.body.status).toBe('pending_verification');
    expect(res.body.cname_target).toBe(`${blog.slug}.localhost`);
    expect(res.body.instructions).toContain(host);
    expect(res.body.instructions).toContain(`${blog.slug}.localhost`);
    expect(res.body.instructions).toMatch(/CNAME/);
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

  it('answers 409 when another blog, of any account, has the hostname', async () => {
    const owner = await buildBlog(t);
    const host = hostname();
    await owner.actor.request('POST', `/v1/blogs/${owner.id}/domain`, { body: { hostname: host } });
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
  it('answers exactly hostname, status and cname_target', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hostname: host, status: 'pending_verification', cname_target: `${blog.slug}.localhost` });
  });

  it('answers 404 when the blog has no domain', async () => {
    const blog = await buildBlog(t);
    expectError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`), 404, 'not_found');
  });

  it('stays pending while the CNAME points elsewhere', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    t.dns.set(host, ['somewhere.else.example']);
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).body.status).toBe('pending_verification');
  });

  it('becomes active once the CNAME points at cname_target; the blog and post URLs then use the domain', async () => {
    const blog = await buildBlog(t);
    const host = hostname();
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    t.dns.set(host, [`${blog.slug}.localhost.`]);
    const before = t.handledJobs.length;
    const res = await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    expect(res.body).toEqual({ hostname: host, status: 'active', cname_target: `${blog.slug}.localhost` });
    await t.folio.runner.idle();
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
    t.dns.set(host, [`${blog.slug}.localhost`]);
    await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: host } });
    await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`);
    await t.folio.runner.idle();
    const before = t.handledJobs.length;
    await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`);
    // Whole-site work runs in the background, after the request answered.
    await t.folio.runner.idle();
    expect(jobsSince(t, before)).toEqual([{ kind: 'site', blogId: blog.id, payload: expect.objectContaining({ hostname: host }) }]);
    expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}`)).body.url).toBe(`http://${blog.slug}.localhost:3000/`);
  });
});
