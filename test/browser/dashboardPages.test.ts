/**
 * The dashboard's blog and account pages in real Chromium (docs/dashboard.md "Pages"), signed in
 * the way a person is, with a one-time link: blogs, posts list, settings, domain, webhooks,
 * analytics and keys, each checked against what the API then says; another account's blog id;
 * keyboard, 390 and 1280 px, light and dark, axe-core and Lighthouse on every page.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/harness/chromium.js';
import { loginLink } from '../support/dashboardSession.js';
import { startLighthouse, type LighthouseBrowser } from '../support/lighthouse.js';
import { loadPage } from '../support/readerVisits.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

let t: TestApp;
let browser: Browser;
let blogId: string;
let blogSlug: string;
let other: { accountId: string; key: string; blogId: string };

/** A browser context signed in as the account (the test's enterprise one by default). */
async function signedIn(options: { accountId?: string; colorScheme?: 'light' | 'dark'; width?: number } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: { width: options.width ?? 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(await loginLink(t, options.accountId ?? t.accountId));
  await page.close();
  return context;
}

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  const response = await page.goto(`${t.baseUrl}${path}`);
  expect(response?.status(), path).toBe(200);
  return page;
}

/** expect.poll with room for a loaded machine (its 1 s default is not); a pass returns at once. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 100 });

const blogPage = (page: string, id = blogId) => `/dashboard/blogs/${id}/${page}`;

beforeAll(async () => {
  t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  blogSlug = 'garden-notes';
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: blogSlug, name: 'Garden notes', description: 'What grows' } })).body.id;
  const account = await t.createAccount('enterprise');
  const otherBlog = await t.request('POST', '/v1/blogs', { key: account.key, body: { slug: 'secret-diary', name: 'Secret diary' } });
  other = { ...account, blogId: otherBlog.body.id };
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('blogs', () => {
  it('lists the blogs with their addresses and creates one, which the API then lists', async () => {
    const context = await signedIn();
    const page = await open(context, '/dashboard');
    await poll(() => page.getByRole('link', { name: 'Garden notes', exact: true }).count()).toBe(1);
    await poll(() => page.getByRole('link', { name: /garden-notes\.localhost/ }).count()).toBe(1);
    await page.getByLabel('Name', { exact: true }).fill('Kitchen log');
    await page.getByLabel('Address (slug)').fill('kitchen-log');
    await page.getByRole('button', { name: 'Create blog' }).click();
    await page.waitForURL(/\/dashboard\/blogs\/[^/]+\/posts$/);
    const blogs = (await t.request('GET', '/v1/blogs')).body.data as { id: string; slug: string }[];
    const created = blogs.find((b) => b.slug === 'kitchen-log');
    expect(created).toBeDefined();
    expect(page.url()).toContain(`/dashboard/blogs/${created!.id}/posts`);
    await context.close();
  });

  it("shows the API's refusal when the plan's blog limit is reached", async () => {
    const free = await t.createAccount('free');
    expect((await t.request('POST', '/v1/blogs', { key: free.key, body: { slug: 'only-one', name: 'Only one' } })).status).toBe(201);
    const context = await signedIn({ accountId: free.accountId });
    const page = await open(context, '/dashboard');
    await page.getByLabel('Name', { exact: true }).fill('Second');
    await page.getByLabel('Address (slug)').fill('second-blog');
    await page.getByRole('button', { name: 'Create blog' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.count()).toBe(1);
    // The API's own words, and the plan it names.
    const refusal = await t.request('POST', '/v1/blogs', { key: free.key, body: { slug: 'second-blog', name: 'Second' } });
    expect(refusal.status).toBe(403);
    expect(await alert.textContent()).toBe(`${refusal.body.message} (needs the Creator plan)`);
    expect((await t.request('GET', '/v1/blogs', { key: free.key })).body.data).toHaveLength(1);
    await context.close();
  });
});

describe('posts list', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 45; i++) {
      const status = i % 3 === 0 ? 'published' : 'draft';
      const tags = i % 5 === 0 ? ['roses'] : ['soil'];
      const res = await t.request('POST', '/v1/posts', {
        blogId,
        body: { title: `Note ${String(i).padStart(2, '0')}${i === 9 ? ' about tulips' : ''}`, slug: `note-${i}`, content: `Body ${i}.`, tags, status },
      });
      expect(res.status, res.text).toBe(201);
      t.clock.advance(1000);
    }
    await t.folio.idle();
  });

  const rows = (page: Page) => page.locator('#posts-list tbody tr');
  const summary = (page: Page) => page.locator('#posts-summary').textContent();

  it('pages, filters by status and tag, keeps the state in the address for back, forward and reload', async () => {
    const context = await signedIn();
    const page = await open(context, blogPage('posts'));
    await poll(() => summary(page)).toContain('45 posts');
    expect(await rows(page).count()).toBe(20);
    // Newest first: the last one made.
    expect(await rows(page).first().locator('a:not(.tag)').textContent()).toBe('Note 45');
    expect(await rows(page).first().locator('a:not(.tag)').getAttribute('href')).toBe(`/dashboard/blogs/${blogId}/posts/note-45`);
    expect(await page.getByRole('link', { name: 'New post' }).getAttribute('href')).toBe(`/dashboard/blogs/${blogId}/new-post`);

    await page.getByRole('link', { name: 'Next page' }).click();
    await poll(() => summary(page)).toContain('page 2 of 3');
    expect(new URL(page.url()).search).toBe('?page=2');
    expect(await rows(page).first().locator('a:not(.tag)').textContent()).toBe('Note 25');

    await page.getByLabel('Status').selectOption('published');
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => summary(page)).toContain('15 posts');
    expect(new URL(page.url()).searchParams.get('status')).toBe('published');
    for (const status of await page.locator('#posts-list .status').allTextContents()) expect(status).toBe('published');

    await page.getByLabel('Tag').fill('roses');
    await page.getByLabel('Sort by').selectOption('updated_at');
    await page.getByLabel('Order').selectOption('asc');
    await page.getByRole('button', { name: 'Apply' }).click();
    // Published (multiples of 3) with the tag roses (multiples of 5): 15, 30, 45, oldest first.
    await poll(() => summary(page)).toContain('3 posts');
    expect(await page.locator('#posts-list tbody tr a:not(.tag)').allTextContents()).toEqual(['Note 15', 'Note 30', 'Note 45']);

    await page.goBack();
    await poll(() => summary(page)).toContain('15 posts');
    expect(await page.getByLabel('Tag').inputValue()).toBe('');
    await page.goBack();
    await poll(() => summary(page)).toContain('page 2 of 3');
    await page.goForward();
    await poll(() => summary(page)).toContain('15 posts');
    await page.reload();
    await poll(() => summary(page)).toContain('15 posts');
    expect(await page.getByLabel('Status').inputValue()).toBe('published');
    await context.close();
  });

  it('searches the published posts with the search API', async () => {
    const context = await signedIn();
    const page = await open(context, `${blogPage('posts')}?q=tulips`);
    await poll(() => summary(page)).toContain('1 published post');
    expect(await page.locator('#posts-list tbody tr a:not(.tag)').allTextContents()).toEqual(['Note 09 about tulips']);
    expect(await page.getByLabel('Status').isDisabled()).toBe(true);
    await page.getByLabel('Search published posts').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => summary(page)).toContain('No published post matches');
    expect(new URL(page.url()).searchParams.get('q')).toBe('nothing-like-this');
    await context.close();
  });
});

describe('looking after the blog', () => {
  it('changes the theme and the blog, as the API then says; keys the plan lacks are disabled with the plan named', async () => {
    const context = await signedIn();
    const page = await open(context, blogPage('settings'));
    const css = page.getByLabel('Custom CSS');
    await poll(() => css.isEnabled()).toBe(true);
    await css.fill('body { color: teal; }');
    await page.getByLabel('Footer HTML').fill('<p>Grown at home</p>');
    await page.getByLabel('Description').fill('What grows, and when');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => page.locator('#settings-status').textContent()).toContain('Saved');
    const blog = (await t.request('GET', `/v1/blogs/${blogId}`)).body;
    expect(blog.theme_config).toEqual({ customCss: 'body { color: teal; }', footerHtml: '<p>Grown at home</p>' });
    expect(blog.description).toBe('What grows, and when');
    await context.close();

    const starter = await t.createAccount('starter');
    const starterBlog = (await t.request('POST', '/v1/blogs', { key: starter.key, body: { slug: 'starter-blog', name: 'Starter blog' } })).body.id;
    const limited = await signedIn({ accountId: starter.accountId });
    const settings = await open(limited, blogPage('settings', starterBlog));
    await poll(() => settings.getByLabel('Custom CSS').isEnabled()).toBe(true);
    const header = settings.getByLabel(/Header HTML/);
    expect(await header.isDisabled()).toBe(true);
    expect(await settings.locator('#t-headerHtml-hint').textContent()).toContain('Needs the Creator plan (yours is Starter)');
    await limited.close();
  });

  it('registers a domain and shows both DNS records as the API gives them, with the last check', async () => {
    const context = await signedIn();
    const page = await open(context, blogPage('domain'));
    await page.getByLabel('Hostname').fill('garden.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await poll(() => page.locator('#domain-status').textContent()).toBe('Waiting for DNS');
    const domain = (await t.request('GET', `/v1/blogs/${blogId}/domain`)).body;
    expect(await page.locator('#rec-1-name').textContent()).toBe('garden.example.com');
    expect(await page.locator('#rec-1-value').textContent()).toBe(domain.cname_target);
    expect(await page.locator('#rec-2-name').textContent()).toBe(domain.verification.name);
    expect(await page.locator('#rec-2-value').textContent()).toBe(domain.verification.value);
    // Once both records are in place, a check from the page turns it active.
    t.satisfyDomainChallenge(domain);
    await page.reload();
    await poll(() => page.locator('#domain-status').textContent()).toBe('Active');
    await context.close();
  });

  it('creates a webhook (its secret shown once), lists a delivery and redelivers it to a loopback receiver', async () => {
    const receiver: Receiver = await startReceiver();
    const context = await signedIn();
    try {
      const page = await open(context, blogPage('webhooks'));
      await page.getByLabel('Address (URL)').fill(receiver.url);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = page.locator('#webhook-secret-value');
      await poll(() => secret.count()).toBe(1);
      const value = (await secret.textContent()) ?? '';
      expect(value).toMatch(/^whsec_/);
      receiver.setSecret(value);
      await page.reload();
      await poll(() => page.locator('#webhooks-list table').count()).toBe(1);
      expect(await page.content()).not.toContain(value);

      expect((await t.request('POST', '/v1/posts/note-1/publish', { blogId })).status).toBe(200);
      await receiver.waitFor(1);
      await t.folio.webhooks.idle();
      await page.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click();
      await poll(() => page.locator('#deliveries-list tbody tr').count()).toBe(1);
      await page.getByRole('button', { name: /^Redeliver post\.published/ }).click();
      const got = await receiver.waitFor(2);
      expect(got[1]!.id).toBe(got[0]!.id);
      expect(got[1]!.verified).toBe(true);
      await poll(() => page.locator('#deliveries-list tbody tr').count()).toBe(2);
    } finally {
      await context.close();
      await receiver.close();
    }
  });

  it('shows the analytics counted from real page loads: totals, the chart with its table, top posts, referrers', async () => {
    expect((await t.request('POST', '/v1/posts/note-3/publish', { blogId })).status).toBe(200);
    await t.folio.idle();
    const host = `${blogSlug}.localhost:3000`;
    for (let i = 0; i < 3; i++) await loadPage(t.baseUrl, host, '/note-3', { referer: 'https://news.example.org/item' });
    await loadPage(t.baseUrl, host, '/note-6');
    await t.folio.analytics.flush();
    const context = await signedIn();
    const page = await open(context, blogPage('analytics'));
    const chart = page.getByRole('img', { name: 'Daily views, last 30 days' });
    await poll(() => chart.count()).toBe(1);
    expect(await page.locator('.totals').textContent()).toContain('Views, last 7 days4');
    expect(await page.locator('#chart-desc').textContent()).toContain('4 views over 30 days');
    expect(await page.locator('.chart .bar').count()).toBe(30);
    await page.getByText('Show the figures as a table').click();
    expect(await page.locator('table.numbers tbody tr').count()).toBe(30);
    expect(await page.getByRole('link', { name: 'Note 03' }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'news.example.org' }).count()).toBe(1);
    await context.close();

    const free = await t.createAccount('free');
    const freeBlog = (await t.request('POST', '/v1/blogs', { key: free.key, body: { slug: 'free-blog', name: 'Free blog' } })).body.id;
    const limited = await signedIn({ accountId: free.accountId });
    const freePage = await open(limited, blogPage('analytics', freeBlog));
    await poll(() => freePage.locator('#analytics-body').textContent()).toContain('Analytics need the Starter plan');
    await limited.close();
  });

  it('creates a key shown once that works with its scopes, and revokes it after a confirmation', async () => {
    const context = await signedIn();
    const page = await open(context, '/dashboard/keys');
    await page.getByLabel('Name', { exact: true }).fill('reader');
    await page.getByLabel(/^Everything/).uncheck();
    await page.getByLabel(/^Read posts/).check();
    await page.getByLabel('Expires').selectOption('90');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-key-value');
    await poll(() => shown.count()).toBe(1);
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^pk_live_/);
    expect((await t.request('GET', '/v1/posts', { key, blogId })).status).toBe(200);
    expect((await t.request('POST', '/v1/posts', { key, blogId, body: { title: 'x', content: 'y' } })).status).toBe(403);
    const listed = (await t.request('GET', '/v1/account/api-keys')).body.data.find((k: { name: string }) => k.name === 'reader');
    expect(listed).toMatchObject({ scopes: ['posts:read'], expires_at: expect.any(String) });

    await page.reload();
    await poll(() => page.getByRole('button', { name: /^Revoke reader/ }).count()).toBe(1);
    expect(await page.content()).not.toContain(key);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: /^Revoke reader/ }).click();
    await poll(() => page.getByRole('button', { name: /^Revoke reader/ }).count()).toBe(0);
    expect((await t.request('GET', '/v1/posts', { key, blogId })).status).toBe(401);
    await context.close();
  });

  it("answers another account's blog id with a clear not-found page and none of its data", async () => {
    const context = await signedIn();
    for (const name of ['posts', 'settings', 'domain', 'webhooks', 'analytics']) {
      const page = await open(context, blogPage(name, other.blogId));
      await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Blog not found');
      const text = (await page.locator('body').textContent()) ?? '';
      expect(text).not.toContain('Secret diary');
      expect(text).not.toContain('secret-diary');
      await page.close();
    }
    await context.close();
  });
});

describe('quality on every page', () => {
  // Run alone (-t), the posts list still has posts to show.
  beforeAll(async () => {
    if ((await t.request('GET', '/v1/posts', { blogId })).body.pagination.total > 0) return;
    for (const slug of ['first-light', 'second-sowing']) {
      await t.request('POST', '/v1/posts', { blogId, body: { title: slug.replace('-', ' '), slug, content: 'Text.', tags: ['soil'], status: 'published' } });
    }
    await t.folio.idle();
  });

  const pages = () => [
    { name: 'blogs', path: '/dashboard', ready: '#blogs-list table' },
    { name: 'posts', path: blogPage('posts'), ready: '#posts-list table' },
    { name: 'settings', path: blogPage('settings'), ready: '#t-customCss' },
    { name: 'domain', path: blogPage('domain'), ready: '#domain-body dl, #domain-body form' },
    { name: 'webhooks', path: blogPage('webhooks'), ready: '#webhooks-list table, #webhooks-list p:not(.muted)' },
    { name: 'analytics', path: blogPage('analytics'), ready: '.views-chart' },
    { name: 'keys', path: '/dashboard/keys', ready: '#keys-list table' },
  ];

  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [390, 1280]) {
      it(`axe-core finds no serious or critical violation, nothing overflows and every control is reachable by keyboard with a visible focus (${scheme}, ${width} px)`, {
        timeout: 300_000,
      }, async () => {
        const context = await signedIn({ colorScheme: scheme, width });
        for (const { name, path, ready } of pages()) {
          const page = await open(context, path);
          await page.waitForSelector(ready);
          const results = await new AxeBuilder({ page }).analyze();
          const serious = results.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${name}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
          expect(serious).toEqual([]);
          expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} overflows`).toBeLessThanOrEqual(width);
          // Tab through the page: every focused element shows an outline.
          const controls = await page.evaluate(
            () =>
              document.querySelectorAll(
                'main a[href], main button:not([disabled]), main input:not([disabled]), main select, main textarea:not([disabled]), main summary',
              ).length,
          );
          const reached = new Set<string>();
          for (let i = 0; i < controls + 12; i++) {
            await page.keyboard.press('Tab');
            const focus = await page.evaluate(() => {
              const el = document.activeElement as HTMLElement | null;
              if (!el || el === document.body) return null;
              const style = getComputedStyle(el);
              return {
                key: `${el.tagName}#${el.id}:${el.textContent?.slice(0, 20)}:${el.getAttribute('name') ?? ''}`,
                outline: style.outlineStyle,
                inMain: !!el.closest('main'),
              };
            });
            if (!focus) continue;
            expect(focus.outline, `${name}: focus visible on ${focus.key}`).not.toBe('none');
            if (focus.inMain) reached.add(focus.key);
          }
          expect(reached.size, `${name}: controls reached by Tab`).toBeGreaterThanOrEqual(Math.min(controls, 3));
          await page.close();
        }
        await context.close();
      });
    }
  }

  describe('Lighthouse', () => {
    let lighthouse: LighthouseBrowser;
    let cookie: string;
    beforeAll(async () => {
      lighthouse = await startLighthouse();
      const context = await signedIn();
      cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      await context.close();
    });
    afterAll(async () => lighthouse?.close());

    it('scores 100 for accessibility and best practices on every page (desktop) and on the posts list as a phone', { timeout: 600_000 }, async () => {
      const low: string[] = [];
      for (const { name, path } of pages()) {
        const { scores, failing } = await lighthouse.audit(`${t.baseUrl}${path}`, { cookie });
        if (scores.accessibility !== 100 || scores['best-practices'] !== 100) low.push(`${name}: ${JSON.stringify(scores)} ${failing.join('; ')}`);
      }
      // And as a phone (390 px wide) sees the busiest page.
      const phone = await lighthouse.audit(`${t.baseUrl}${blogPage('posts')}`, { cookie, formFactor: 'mobile' });
      if (phone.scores.accessibility !== 100 || phone.scores['best-practices'] !== 100)
        low.push(`posts (mobile): ${JSON.stringify(phone.scores)} ${phone.failing.join('; ')}`);
      expect(low).toEqual([]);
    });
  });
});
