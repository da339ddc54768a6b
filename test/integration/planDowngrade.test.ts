/**
 * A plan change reaches the live site: pages carry only the theme keys the account's current plan
 * includes. Theme keys used to be checked only when written, so after `folio account set-plan <id>
 * free` a creator's header, footer, ad code and CSS stayed on every page.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import type { Plan } from '../../src/domain/plans.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';
import { buildAccount, buildBlog, buildPost, countRows, postPath, type BuiltBlog } from '../support/factories.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_BIN = join(ROOT, 'bin', 'folio.js');
const CLI_BUILD = join(ROOT, 'dist', 'src', 'cliMain.js');

/** One marker per theme key, each a string no page contains unless that key was rendered. */
const MARKS = {
  customCss: 'mark-custom-css',
  adCode: 'mark-ad-code',
  cssUrl: 'mark-css-url',
  headerHtml: 'mark-header-html',
  footerHtml: 'mark-footer-html',
} as const;
type ThemeKey = keyof typeof MARKS;
const ALL_KEYS = Object.keys(MARKS) as ThemeKey[];

const THEME = {
  customCss: `.${MARKS.customCss} { color: #c00 }`,
  adCode: `<ins class="${MARKS.adCode}"></ins>`,
  cssUrl: `https://cdn.example.com/${MARKS.cssUrl}.css`,
  headerHtml: `<nav class="${MARKS.headerHtml}">Home</nav>`,
  footerHtml: `<p class="${MARKS.footerHtml}">© me</p>`,
};

let t: TestApp;
let store: FsSiteStore;

beforeAll(async () => {
  t = await startTestApp();
  store = new FsSiteStore({ root: join(t.dataDir, 'public') });
});
afterAll(async () => t.close());

/** Which markers a stored object carries. */
async function marksIn(key: string): Promise<ThemeKey[]> {
  const object = await store.get(key);
  expect(object, `${key} is in the store`).not.toBeNull();
  const text = object!.body.toString('utf8');
  return ALL_KEYS.filter((k) => text.includes(MARKS[k]));
}

/** Every HTML page of the blog in the store, with the markers it carries. */
async function pageMarks(slug: string): Promise<Map<string, ThemeKey[]>> {
  const pages = new Map<string, ThemeKey[]>();
  for (const key of (await store.list(`${slug}/`)).filter((k) => k.endsWith('.html')).sort()) pages.set(key, await marksIn(key));
  return pages;
}

/**
 * Asserts that every page carries exactly the layout keys (header, footer, CSS) of `keys`, and
 * that post pages also carry the ad code when it is among them.
 */
async function expectPagesRender(blog: BuiltBlog, postSlugs: string[], keys: ThemeKey[]): Promise<void> {
  const pages = await pageMarks(blog.slug);
  for (const postSlug of postSlugs) expect([...pages.keys()]).toContain(`${blog.slug}/${postSlug}/index.html`);
  expect([...pages.keys()]).toContain(`${blog.slug}/index.html`);
  const layoutKeys = keys.filter((k) => k !== 'adCode');
  for (const [key, marks] of pages) {
    const isPost = postSlugs.some((p) => key === `${blog.slug}/${p}/index.html`);
    expect(marks, key).toEqual(ALL_KEYS.filter((k) => (isPost ? keys : layoutKeys).includes(k)));
  }
}

async function themedBlog(plan: Plan = 'creator'): Promise<{ blog: BuiltBlog; postSlug: string }> {
  const actor = await buildAccount(t, 'creator');
  const blog = await buildBlog(t, { actor });
  const put = await actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: THEME } });
  expect(put.status, put.text).toBe(200);
  await t.folio.idle();
  const post = await buildPost(blog, { title: 'Themed post' });
  expect((await actor.request('POST', postPath(post.slug, '/publish'), { blogId: blog.id })).status).toBe(200);
  await expectPagesRender(blog, [post.slug], ALL_KEYS);
  if (plan !== 'creator') await changePlan(blog, plan);
  return { blog, postSlug: post.slug };
}

/** What the CLI does, through the same service, then the server's per-second tick. */
async function changePlan(blog: BuiltBlog, plan: Plan): Promise<number[]> {
  const change = await t.folio.accounts.setPlan(blog.actor.accountId, plan);
  expect(change).not.toBeNull();
  await t.folio.tick();
  await t.folio.idle();
  return change!.jobIds;
}

async function expectStoreMatchesDatabase(blog: BuiltBlog): Promise<void> {
  const row = (await t.folio.repos.blogs.findById(blog.id))!;
  const report = await t.folio.publisher.verify(row);
  expect({ missing: report.missing, different: report.different, extra: report.extra }).toEqual({ missing: [], different: [], extra: [] });
}

describe('a plan change re-renders the account’s sites', () => {
  it('takes every plan-gated theme field off every page after a downgrade to free, keeping the stored theme_config', async () => {
    const { blog, postSlug } = await themedBlog();
    const jobIds = await changePlan(blog, 'free');
    expect(jobIds).toHaveLength(1);
    expect(await t.folio.repos.jobs.findById(jobIds[0]!)).toMatchObject({ kind: 'site', blogId: blog.id, status: 'done', payload: { reason: 'plan_changed' } });

    await expectPagesRender(blog, [postSlug], []);
    // What the site server sends, not only what the store holds.
    const host = `${blog.slug}.localhost:3000`;
    for (const path of ['/', `/${postSlug}`]) {
      const page = await visit(t.baseUrl, host, path);
      expect(page.status).toBe(200);
      for (const mark of Object.values(MARKS)) expect(page.text).not.toContain(mark);
    }
    // Kept but not rendered: an upgrade restores it, and the API still shows it.
    const got = await blog.actor.request('GET', `/v1/blogs/${blog.id}`);
    expect(got.body.theme_config).toEqual(THEME);
    // `folio site verify` renders with the same filter, so it agrees with what the job wrote.
    await expectStoreMatchesDatabase(blog);
  });

  it('renders a post published after the downgrade without them', async () => {
    const { blog, postSlug } = await themedBlog('free');
    const later = await buildPost(blog, { title: 'After the downgrade' });
    expect((await blog.actor.request('POST', postPath(later.slug, '/publish'), { blogId: blog.id })).status).toBe(200);
    await expectPagesRender(blog, [postSlug, later.slug], []);
    await expectStoreMatchesDatabase(blog);
  });

  it('brings the stored fields back after an upgrade', async () => {
    const { blog, postSlug } = await themedBlog('free');
    expect(await changePlan(blog, 'creator')).toHaveLength(1);
    await expectPagesRender(blog, [postSlug], ALL_KEYS);
    await expectStoreMatchesDatabase(blog);
  });

  it('keeps customCss, adCode and cssUrl on the starter plan but not headerHtml or footerHtml', async () => {
    const { blog, postSlug } = await themedBlog('starter');
    await expectPagesRender(blog, [postSlug], ['customCss', 'adCode', 'cssUrl']);
    const home = (await store.get(`${blog.slug}/index.html`))!.body.toString('utf8');
    expect(home).toContain(`<link rel="stylesheet" href="${THEME.cssUrl}"`);
    await expectStoreMatchesDatabase(blog);
  });

  it('re-renders every blog of the account, and records nothing when the plan is unchanged', async () => {
    const actor = await buildAccount(t, 'creator');
    const blogs = [await buildBlog(t, { actor }), await buildBlog(t, { actor })];
    for (const blog of blogs) {
      await actor.request('PUT', `/v1/blogs/${blog.id}`, { body: { theme_config: { headerHtml: THEME.headerHtml } } });
      const post = await buildPost(blog);
      await actor.request('POST', postPath(post.slug, '/publish'), { blogId: blog.id });
    }
    await t.folio.idle();
    const before = await countRows(t, 'publish_jobs');
    expect(await t.folio.accounts.setPlan(actor.accountId, 'creator')).toEqual({ previous: 'creator', jobIds: [] });
    expect(await countRows(t, 'publish_jobs')).toBe(before);

    const change = await t.folio.accounts.setPlan(actor.accountId, 'starter');
    expect(change?.previous).toBe('creator');
    const changedBlogIds: (string | undefined)[] = [];
    for (const id of change?.jobIds ?? []) changedBlogIds.push((await t.folio.repos.jobs.findById(id))?.blogId);
    expect(change && changedBlogIds.sort()).toEqual(blogs.map((b) => b.id).sort());
    await t.folio.tick();
    await t.folio.idle();
    for (const blog of blogs) expect(await marksIn(`${blog.slug}/index.html`)).toEqual([]);
  });

  it('answers null for an unknown account', async () => {
    expect(await t.folio.accounts.setPlan('00000000-0000-4000-8000-000000000000', 'free')).toBeNull();
  });
});

describe('folio account set-plan (the command line, in its own process)', () => {
  beforeAll(() => {
    if (!existsSync(CLI_BUILD)) throw new Error(`${CLI_BUILD} is missing: run \`npx tsc -p .\` (npm test does) before these tests`);
  });

  const cli = (...args: string[]) => promisify(execFile)(process.execPath, [CLI_BIN, ...args], { env: { ...process.env, ...t.cliEnv }, encoding: 'utf8' });

  it('records the re-render durably, and the running server’s tick applies it', async () => {
    const { blog, postSlug } = await themedBlog();
    const { stdout } = await cli('account', 'set-plan', blog.actor.accountId, 'free');
    expect(stdout).toContain('is now on the free plan (was creator)');
    expect(stdout).toContain('1 blog will be re-rendered by the running server, or at its next start.');
    // The CLI process only recorded the job; nothing was rendered yet.
    expect(await t.folio.repos.jobs.listOpenForBlog(blog.id)).toMatchObject([{ kind: 'site', status: 'pending', payload: { reason: 'plan_changed' } }]);
    expect(await marksIn(`${blog.slug}/index.html`)).toEqual(['customCss', 'cssUrl', 'headerHtml', 'footerHtml']);

    // The server's clock is the wall clock, as the CLI's is (the test app starts on a fixed date).
    t.clock.set(new Date());
    await t.folio.tick();
    await t.folio.idle();
    expect(await t.folio.repos.jobs.listOpenForBlog(blog.id)).toEqual([]);
    await expectPagesRender(blog, [postSlug], []);
    await expectStoreMatchesDatabase(blog);

    const again = await cli('account', 'set-plan', blog.actor.accountId, 'free');
    expect(again.stdout).toContain('already on the free plan; nothing changed');
    expect(await t.folio.repos.jobs.listOpenForBlog(blog.id)).toEqual([]);
  });
});
