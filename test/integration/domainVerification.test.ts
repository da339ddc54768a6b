import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCnameResolver } from '../../src/compose.js';
import { startDnsServer, type TestDnsServer } from '../support/dnsServer.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('custom domain verification against a DNS server on loopback', () => {
  let dns: TestDnsServer;
  let t: TestApp;
  let key: string;
  let blogId: string;

  beforeAll(async () => {
    dns = await startDnsServer();
    // The real Node resolver, asking the real DNS server above.
    t = await startTestApp({ resolver: createCnameResolver([dns.address]) });
    key = t.createAccount('starter').key;
    const blog = await t.request('POST', '/v1/blogs', { key, body: { slug: 'dnsblog', name: 'DNS blog' } });
    blogId = blog.body.id;
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  it('stays pending while the hostname has no CNAME, and says why in the check', async () => {
    const reg = await t.request('POST', `/v1/blogs/${blogId}/domain`, { key, body: { hostname: 'blog.example.org' } });
    expect(reg.status).toBe(201);
    expect(reg.body.cname_target).toBe('dnsblog.localhost');
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body.status).toBe('pending_verification');
    expect(t.folio.repos.domains.findByBlog(blogId)?.lastError).toMatch(/no CNAME|DNS lookup failed/);
  });

  it('stays pending when the CNAME points somewhere else', async () => {
    dns.setCname('blog.example.org', 'elsewhere.example.net');
    expect(await t.folio.domains.checkPending()).toBe(0);
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body.status).toBe('pending_verification');
    expect(t.folio.repos.domains.findByBlog(blogId)?.lastError).toContain('elsewhere.example.net');
  });

  it('becomes active in the background check once the CNAME points at cname_target, and re-renders the site', async () => {
    dns.setCname('blog.example.org', 'dnsblog.localhost');
    const jobsBefore = t.handledJobs.length;
    expect(await t.folio.domains.checkPending()).toBe(1);
    await t.folio.runner.idle();
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body).toEqual({ hostname: 'blog.example.org', status: 'active', cname_target: 'dnsblog.localhost' });
    const job = t.handledJobs.slice(jobsBefore).find((j) => j.kind === 'site');
    expect(job?.payload).toMatchObject({ reason: 'domain_active', hostname: 'blog.example.org' });
    const blog = await t.request('GET', `/v1/blogs/${blogId}`, { key });
    expect(blog.body.url).toBe('http://blog.example.org/');
    expect(blog.body.custom_domain).toBe('blog.example.org');
  });

  it('removing an active domain re-renders the site with subdomain URLs again', async () => {
    const jobsBefore = t.handledJobs.length;
    const del = await t.request('DELETE', `/v1/blogs/${blogId}/domain`, { key });
    expect(del.body).toEqual({ deleted: true });
    await t.folio.runner.idle();
    const job = t.handledJobs.slice(jobsBefore).find((j) => j.kind === 'site');
    expect(job?.payload).toMatchObject({ reason: 'domain_removed', hostname: 'blog.example.org' });
    const blog = await t.request('GET', `/v1/blogs/${blogId}`, { key });
    expect(blog.body.url).toBe('http://dnsblog.localhost:3000/');
  });

  it('verifies on GET when the record is already in place', async () => {
    dns.setCname('www.example.org', 'dnsblog.localhost.');
    await t.request('POST', `/v1/blogs/${blogId}/domain`, { key, body: { hostname: 'www.example.org' } });
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body.status).toBe('active');
  });
});
