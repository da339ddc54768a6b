import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { PLANS, type Plan } from '../../src/domain/plans.js';
import { buildAccount, buildBlog, buildPost, expectError, expectPlanError, postPath, uniqueSlug } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const rank = (plan: Plan): number => PLANS.indexOf(plan);
const atLeast = (plan: Plan, minimum: Plan): boolean => rank(plan) >= rank(minimum);

const BLOG_LIMITS: Record<Plan, number | null> = { free: 1, starter: 1, creator: 3, scale: 5, enterprise: null };
/** The plan that allows one more blog than the given plan's limit. */
const NEXT_FOR_BLOGS: Record<Plan, Plan | null> = { free: 'creator', starter: 'creator', creator: 'scale', scale: 'enterprise', enterprise: null };

describe('blogs per plan', () => {
  for (const plan of PLANS) {
    const limit = BLOG_LIMITS[plan];
    if (limit === null) {
      it(`lets ${plan} create more blogs than any other plan allows`, async () => {
        const actor = await buildAccount(t, plan);
        for (let i = 0; i < 7; i += 1) await buildBlog(t, { actor });
        expect((await actor.request('GET', '/v1/blogs')).body.data).toHaveLength(7);
      });
      continue;
    }
    it(`lets ${plan} create ${limit} blog${limit === 1 ? '' : 's'}, then answers 403 with required_plan ${NEXT_FOR_BLOGS[plan]}`, async () => {
      const actor = await buildAccount(t, plan);
      for (let i = 0; i < limit; i += 1) await buildBlog(t, { actor });
      const slug = uniqueSlug('over');
      const res = await actor.request('POST', '/v1/blogs', { body: { slug, name: 'One too many' } });
      expectPlanError(res, NEXT_FOR_BLOGS[plan]!);
      expect((await actor.request('GET', '/v1/blogs')).body.data).toHaveLength(limit);
      // The refused slug was not taken.
      await buildBlog(t, { slug });
    });
  }

  it('lets an account create more blogs after an upgrade', async () => {
    const actor = await buildAccount(t, 'free');
    await buildBlog(t, { actor });
    expectPlanError(await actor.request('POST', '/v1/blogs', { body: { slug: uniqueSlug(), name: 'x' } }), 'creator');
    await t.folio.accounts.setPlan(actor.accountId, 'creator');
    await buildBlog(t, { actor });
  });
});

const THEME_MINIMUM: Record<string, Plan> = {
  customCss: 'starter',
  adCode: 'starter',
  cssUrl: 'starter',
  headerHtml: 'creator',
  footerHtml: 'creator',
};
const THEME_VALUES: Record<string, string> = {
  customCss: 'body { color: #333 }',
  adCode: '<ins class="ad"></ins>',
  cssUrl: 'https://cdn.example.com/theme.css',
  headerHtml: '<nav>Home</nav>',
  footerHtml: '<footer>© me</footer>',
};

describe('theme_config keys per plan', () => {
  for (const plan of PLANS) {
    for (const [key, minimum] of Object.entries(THEME_MINIMUM)) {
      if (atLeast(plan, minimum)) {
        it(`lets ${plan} set theme_config.${key}`, async () => {
          const blog = await buildBlog(t, { plan });
          const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { [key]: THEME_VALUES[key] } } });
          expect(res.status).toBe(200);
          expect(res.body.theme_config).toEqual({ [key]: THEME_VALUES[key] });
        });
      } else {
        it(`answers 403 with required_plan ${minimum} when ${plan} sets theme_config.${key}, changing nothing`, async () => {
          const blog = await buildBlog(t, { plan });
          const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { name: 'Renamed', theme_config: { [key]: THEME_VALUES[key] } } });
          expectPlanError(res, minimum);
          const got = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
          expect(got.body.theme_config).toEqual({});
          expect(got.body.name).toBe(blog.name);
        });
      }
    }
  }

  it('lets a downgraded account remove theme keys it can no longer set', async () => {
    const blog = await buildBlog(t, { plan: 'creator' });
    await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { headerHtml: '<b>x</b>', customCss: 'a{}' } } });
    await t.folio.accounts.setPlan(blog.actor.accountId, 'free');
    expectPlanError(await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { headerHtml: '<i>y</i>' } } }), 'creator');
    const res = await blog.actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { headerHtml: null, customCss: null } } });
    expect(res.status).toBe(200);
    expect(res.body.theme_config).toEqual({});
  });
});

describe('custom domain operations per plan', () => {
  let hostSeq = 0;
  for (const plan of PLANS) {
    if (atLeast(plan, 'starter')) {
      it(`lets ${plan} register, get and delete a custom domain`, async () => {
        const blog = await buildBlog(t, { plan });
        const hostname = `${plan}${(hostSeq += 1)}.gating.example.com`;
        expect((await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname } })).status).toBe(201);
        expect((await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`)).status).toBe(200);
        expect((await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`)).status).toBe(200);
      });
    } else {
      it(`answers 403 with required_plan starter to ${plan} on POST, GET and DELETE of the domain`, async () => {
        const blog = await buildBlog(t, { plan });
        expectPlanError(await blog.actor.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: 'free.gating.example.com' } }), 'starter');
        expectPlanError(await blog.actor.request('GET', `/v1/blogs/${blog.id}/domain`), 'starter');
        expectPlanError(await blog.actor.request('DELETE', `/v1/blogs/${blog.id}/domain`), 'starter');
        expect(await t.folio.repos.domains.findByBlog(blog.id)).toBeNull();
      });
    }
  }
});

describe('scheduling per plan', () => {
  for (const plan of PLANS) {
    const at = '2031-01-01T00:00:00.000Z';
    if (atLeast(plan, 'creator')) {
      it(`lets ${plan} schedule a post`, async () => {
        const blog = await buildBlog(t, { plan });
        const post = await buildPost(blog, { title: 'Later' });
        const res = await blog.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: at } });
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('scheduled');
      });
    } else {
      it(`answers 403 with required_plan creator when ${plan} schedules a post, which stays a draft`, async () => {
        const blog = await buildBlog(t, { plan });
        const post = await buildPost(blog, { title: 'Later' });
        const res = await blog.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: at } });
        expectPlanError(res, 'creator');
        const got = await blog.actor.request('GET', postPath(post.slug), { blogId: blog.id });
        expect(got.body.status).toBe('draft');
        expect(got.body.scheduled_at).toBeNull();
      });
    }
  }

  it('takes a plan change into account on the next request', async () => {
    const blog = await buildBlog(t, { plan: 'starter' });
    const post = await buildPost(blog, { title: 'Upgrade me' });
    const schedule = () => blog.actor.request('POST', postPath(post.slug, '/schedule'), { blogId: blog.id, body: { scheduled_at: '2031-01-01T00:00:00Z' } });
    expectPlanError(await schedule(), 'creator');
    expect(await t.folio.accounts.setPlan(blog.actor.accountId, 'creator')).not.toBeNull();
    expect((await schedule()).status).toBe(200);
    await t.folio.accounts.setPlan(blog.actor.accountId, 'starter');
    expectError(await schedule(), 403, 'forbidden');
  });

  it('lets every plan create, publish and unpublish posts', async () => {
    for (const plan of PLANS) {
      const blog = await buildBlog(t, { plan });
      const post = await buildPost(blog, { title: `Plain ${plan}` });
      expect((await blog.actor.request('POST', postPath(post.slug, '/publish'), { blogId: blog.id })).status).toBe(200);
      expect((await blog.actor.request('POST', postPath(post.slug, '/unpublish'), { blogId: blog.id })).status).toBe(200);
    }
  });
});
