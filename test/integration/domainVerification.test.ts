import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomainResolver } from '../../src/compose/adapters.js';
import { startDnsServer, type TestDnsServer } from '../support/dnsServer.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('custom domain verification against a DNS server on loopback', () => {
  let dns: TestDnsServer;
  let t: TestApp;
  let key: string;
  let blogId: string;
  let challenge: { type: string; name: string; value: string };

  beforeAll(async () => {
    dns = await startDnsServer();
    // The real Node resolver, asking the real DNS server above.
    t = await startTestApp({ resolver: createDomainResolver([dns.address]) });
    key = (await t.createAccount('starter')).key;
    const blog = await t.request('POST', '/v1/blogs', { key, body: { slug: 'dnsblog', name: 'DNS blog' } });
    blogId = blog.body.id;
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  const lastError = async (): Promise<string | null | undefined> => (await t.folio.repos.domains.findByBlog(blogId))?.lastError;

  it('stays pending while the hostname has neither record, and says so for both', async () => {
    const reg = await t.request('POST', `/v1/blogs/${blogId}/domain`, { key, body: { hostname: 'blog.example.org' } });
    expect(reg.status).toBe(201);
    expect(reg.body.cname_target).toBe('dnsblog.localhost');
    challenge = reg.body.verification;
    expect(challenge).toEqual({ type: 'TXT', name: '_folio-challenge.blog.example.org', value: expect.stringMatching(/^folio-verification=[0-9a-f]{32}$/) });
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body.status).toBe('pending_verification');
    expect(got.body.last_error).toBe('no CNAME record at blog.example.org; no TXT record at _folio-challenge.blog.example.org');
  });

  it('stays pending when the CNAME points somewhere else', async () => {
    dns.setCname('blog.example.org', 'elsewhere.example.net');
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`, { key })).body.status).toBe('pending_verification');
    expect(await lastError()).toContain('CNAME points at elsewhere.example.net, expected dnsblog.localhost');
  });

  it('stays pending with a correct CNAME but no TXT record, or a TXT record with another token', async () => {
    dns.setCname('blog.example.org', 'dnsblog.localhost');
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect(await lastError()).toBe('no TXT record at _folio-challenge.blog.example.org');
    dns.setTxt(challenge.name, ['v=spf1 -all', `folio-verification=${'0'.repeat(32)}`, challenge.value.toUpperCase()]);
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect(await lastError()).toBe(`no TXT record at _folio-challenge.blog.example.org is ${challenge.value}`);
    // The bare token is not the format.
    dns.setTxt(challenge.name, [challenge.value.replace('folio-verification=', '')]);
    expect(await t.folio.domains.checkPending()).toBe(0);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`, { key })).body.status).toBe('pending_verification');
  });

  it('becomes active in the background check once both records are right, and re-renders the site', async () => {
    // Among other TXT records, and split into two character strings as long records may be.
    dns.setTxt(challenge.name, ['v=spf1 -all', [challenge.value.slice(0, 20), challenge.value.slice(20)]]);
    const jobsBefore = t.handledJobs.length;
    expect(await t.folio.domains.checkPending()).toBe(1);
    await t.folio.idle();
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
    await t.folio.idle();
    const job = t.handledJobs.slice(jobsBefore).find((j) => j.kind === 'site');
    expect(job?.payload).toMatchObject({ reason: 'domain_removed', hostname: 'blog.example.org' });
    const blog = await t.request('GET', `/v1/blogs/${blogId}`, { key });
    expect(blog.body.url).toBe('http://dnsblog.localhost:3000/');
  });

  it('a new registration of the same hostname gets a new token: the old TXT record no longer verifies it', async () => {
    const reg = await t.request('POST', `/v1/blogs/${blogId}/domain`, { key, body: { hostname: 'blog.example.org' } });
    expect(reg.body.verification.value).not.toBe(challenge.value);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`, { key })).body.status).toBe('pending_verification');
    dns.setTxt(reg.body.verification.name, [reg.body.verification.value]);
    expect((await t.request('GET', `/v1/blogs/${blogId}/domain`, { key })).body.status).toBe('active');
    expect((await t.request('DELETE', `/v1/blogs/${blogId}/domain`, { key })).status).toBe(200);
  });

  it('verifies on GET when the records are already in place', async () => {
    dns.setCname('www.example.org', 'dnsblog.localhost.');
    const reg = await t.request('POST', `/v1/blogs/${blogId}/domain`, { key, body: { hostname: 'www.example.org' } });
    dns.setTxt(reg.body.verification.name, [reg.body.verification.value]);
    const got = await t.request('GET', `/v1/blogs/${blogId}/domain`, { key });
    expect(got.body.status).toBe('active');
  });
});
