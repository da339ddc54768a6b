import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import type { PublishJob } from '../../src/db/jobsRepo.js';
import { buildBlog, buildPost, countRows, ISO_MS, jobsSince, postPath, sortedKeys, type BuiltBlog } from '../support/factories.js';

describe('durable publish jobs', () => {
  let t: TestApp;
  let blog: BuiltBlog;
  beforeAll(async () => {
    t = await startTestApp();
    blog = await buildBlog(t, { plan: 'enterprise' });
  });
  afterAll(async () => t.close());

  /** Runs `action` and returns the jobs it recorded (and the handler received). */
  async function jobsOf(action: () => Promise<unknown>) {
    const handled = t.handledJobs.length;
    const rows = await countRows(t, 'publish_jobs');
    await action();
    await t.folio.idle();
    const jobs = jobsSince(t, handled);
    expect((await countRows(t, 'publish_jobs')) - rows).toBe(jobs.length);
    return jobs;
  }

  const put = (slug: string, body: unknown) => blog.actor.request('PUT', postPath(slug), { blogId: blog.id, body });

  it('records one post job when a draft is published', async () => {
    const post = await buildPost(blog, { title: 'To publish' });
    const jobs = await jobsOf(() => blog.actor.request('POST', postPath(post.slug, '/publish'), { blogId: blog.id }));
    expect(jobs).toEqual([{ kind: 'post', blogId: blog.id, payload: expect.objectContaining({ postId: post.id }) }]);
  });

  it('records one post job when a post is created as published', async () => {
    let id = '';
    const jobs = await jobsOf(async () => {
      id = (await buildPost(blog, { title: 'Born live', status: 'published' })).id;
    });
    expect(jobs).toEqual([{ kind: 'post', blogId: blog.id, payload: expect.objectContaining({ postId: id }) }]);
  });

  it('records one post_removed job naming the slug and tags when a post is unpublished', async () => {
    const post = await buildPost(blog, { title: 'Going away', status: 'published', tags: ['x'] });
    const jobs = await jobsOf(() => blog.actor.request('POST', postPath(post.slug, '/unpublish'), { blogId: blog.id }));
    expect(jobs).toEqual([
      { kind: 'post_removed', blogId: blog.id, payload: expect.objectContaining({ postId: post.id, previousSlug: post.slug, previousTags: ['x'] }) },
    ]);
  });

  it('records one post_removed job when a published post is PUT back to draft', async () => {
    const post = await buildPost(blog, { title: 'Back to draft', status: 'published' });
    const jobs = await jobsOf(() => put(post.slug, { status: 'draft' }));
    expect(jobs.map((j) => j.kind)).toEqual(['post_removed']);
  });

  it('records one post job, with the previous tags, when a published post is updated', async () => {
    const post = await buildPost(blog, { title: 'Live edit', status: 'published', tags: ['old'] });
    const jobs = await jobsOf(() => put(post.slug, { title: 'Live edit 2', tags: ['new'] }));
    expect(jobs).toEqual([{ kind: 'post', blogId: blog.id, payload: expect.objectContaining({ postId: post.id, previousTags: ['old'] }) }]);
  });

  it('records one post_removed job when a published post is deleted', async () => {
    const post = await buildPost(blog, { title: 'Delete live', status: 'published' });
    const jobs = await jobsOf(() => blog.actor.request('DELETE', postPath(post.slug), { blogId: blog.id }));
    expect(jobs).toEqual([{ kind: 'post_removed', blogId: blog.id, payload: expect.objectContaining({ postId: post.id, previousSlug: post.slug }) }]);
  });

  it('records one post_removed job listing old addresses when a renamed published post is deleted', async () => {
    const post = await buildPost(blog, { title: 'Renamed then deleted', slug: 'rtd-one', status: 'published' });
    await put('rtd-one', { slug: 'rtd-two' });
    const jobs = await jobsOf(() => blog.actor.request('DELETE', postPath('rtd-two'), { blogId: blog.id }));
    expect(jobs).toEqual([
      { kind: 'post_removed', blogId: blog.id, payload: expect.objectContaining({ postId: post.id, previousSlug: 'rtd-two', removedRedirects: ['rtd-one'] }) },
    ]);
  });

  it('records no job for draft-only work: create, edit, rename, schedule, unpublish a schedule, delete', async () => {
    const jobs = await jobsOf(async () => {
      const post = await buildPost(blog, { title: 'Quiet draft', slug: 'quiet' });
      await put('quiet', { title: 'Still quiet', content: 'new', tags: ['t'], meta: { description: 'd' } });
      await put('quiet', { slug: 'quiet-renamed' });
      await blog.actor.request('POST', postPath('quiet-renamed', '/schedule'), { blogId: blog.id, body: { scheduled_at: '2031-01-01T00:00:00Z' } });
      await put('quiet-renamed', { title: 'Scheduled edit' });
      await blog.actor.request('POST', postPath('quiet-renamed', '/unpublish'), { blogId: blog.id });
      await blog.actor.request('DELETE', postPath('quiet-renamed'), { blogId: blog.id });
      expect(post.id).toBeTruthy();
    });
    expect(jobs).toEqual([]);
  });

  it('records one site job when the theme changes, and one when the name changes', async () => {
    const themed = await buildBlog(t, { actor: blog.actor });
    const theme = await jobsOf(() => themed.actor.request('PUT', `/v1/blogs/${themed.id}`, { body: { theme_config: { customCss: 'a{}' } } }));
    expect(theme).toEqual([{ kind: 'site', blogId: themed.id, payload: expect.any(Object) }]);
    const name = await jobsOf(() => themed.actor.request('PUT', `/v1/blogs/${themed.id}`, { body: { name: 'New name' } }));
    expect(name.map((j) => j.kind)).toEqual(['site']);
  });

  it('records no job when a blog update changes nothing visible', async () => {
    const same = await buildBlog(t, { actor: blog.actor, name: 'Same' });
    const jobs = await jobsOf(() => same.actor.request('PUT', `/v1/blogs/${same.id}`, { body: { name: 'Same', theme_config: {} } }));
    expect(jobs).toEqual([]);
  });

  it('records one site_delete job when a blog is deleted, also for a blog with live posts', async () => {
    const doomed = await buildBlog(t, { actor: blog.actor });
    await buildPost(doomed, { title: 'Live in doomed', status: 'published' });
    const jobs = await jobsOf(() => doomed.actor.request('DELETE', `/v1/blogs/${doomed.id}`));
    expect(jobs).toEqual([{ kind: 'site_delete', blogId: doomed.id, payload: expect.not.objectContaining({ hostname: expect.anything() }) }]);
  });

  it('names the custom domain in the site_delete job of a blog that has one', async () => {
    const doomed = await buildBlog(t, { actor: blog.actor });
    await doomed.actor.request('POST', `/v1/blogs/${doomed.id}/domain`, { body: { hostname: 'doomed.jobs.example.com' } });
    const jobs = await jobsOf(() => doomed.actor.request('DELETE', `/v1/blogs/${doomed.id}`));
    expect(jobs).toEqual([{ kind: 'site_delete', blogId: doomed.id, payload: expect.objectContaining({ hostname: 'doomed.jobs.example.com' }) }]);
  });

  it('marks carried-out jobs done', async () => {
    const post = await buildPost(blog, { title: 'Done job', status: 'published' });
    const row = await t.folio.sql.get('SELECT status, attempts FROM publish_jobs WHERE payload LIKE ? ORDER BY id DESC', [`%${post.id}%`]);
    expect(row).toEqual({ status: 'done', attempts: 1 });
  });
});

describe('a publish job whose handler fails', () => {
  let t: TestApp;
  let blog: BuiltBlog;
  let failing = true;
  const received: PublishJob[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      jobHandler: async (job) => {
        received.push(job);
        if (failing) throw new Error('storage is down');
      },
    });
    // The blog's own site job (its empty site) runs while the handler still works.
    failing = false;
    blog = await buildBlog(t);
    received.length = 0;
    failing = true;
  });
  afterAll(async () => t.close());

  const publishing = async () => (await blog.actor.request('GET', `/v1/blogs/${blog.id}/publishing`)).body;

  it('still answers the request, and leaves the job pending with last_error visible', async () => {
    const post = await buildPost(blog, { title: 'Against the odds' });
    const res = await blog.actor.request('POST', postPath(post.slug, '/publish'), { blogId: blog.id });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('published');
    expect(received).toHaveLength(1);
    const body = await publishing();
    expect(sortedKeys(body)).toEqual(['failed', 'jobs', 'pending']);
    expect(body.pending).toBe(1);
    expect(body.failed).toBe(1);
    expect(body.jobs).toHaveLength(1);
    const job = body.jobs[0];
    expect(sortedKeys(job)).toEqual(['attempts', 'created_at', 'id', 'kind', 'last_error', 'next_attempt_at', 'status']);
    expect(job).toMatchObject({ kind: 'post', status: 'failed', attempts: 1, last_error: 'storage is down' });
    expect(job.created_at).toMatch(ISO_MS);
    expect(job.next_attempt_at).toMatch(ISO_MS);
    expect(Date.parse(job.next_attempt_at)).toBeGreaterThan(t.clock.now().getTime());
  });

  it('is not retried before its backoff has passed', async () => {
    await t.folio.runner.runDue();
    expect(received).toHaveLength(1);
    expect((await publishing()).jobs[0].attempts).toBe(1);
  });

  it('is retried by runDue after the clock passes the backoff, backing off further while it fails', async () => {
    const first = (await publishing()).jobs[0];
    t.clock.set(first.next_attempt_at);
    expect(await t.folio.runner.runDue()).toBe(1);
    expect(received).toHaveLength(2);
    const second = (await publishing()).jobs[0];
    expect(second.attempts).toBe(2);
    expect(Date.parse(second.next_attempt_at) - t.clock.now().getTime()).toBeGreaterThan(Date.parse(first.next_attempt_at) - Date.parse(first.created_at));
  });

  it('is carried out once the handler works again, and disappears from the list', async () => {
    failing = false;
    const pending = (await publishing()).jobs[0];
    t.clock.set(pending.next_attempt_at);
    await t.folio.tick();
    expect(received).toHaveLength(3);
    expect(received[2]!.id).toBe(pending.id);
    expect(await publishing()).toEqual({ pending: 0, failed: 0, jobs: [] });
    await t.folio.runner.runDue();
    expect(received).toHaveLength(3);
  });
});
