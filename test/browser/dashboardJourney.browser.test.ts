/**
 * Issue #30's acceptance, as one story: a new user starts the built server (`node
 * dist/server/main.js`, as `npm start` does) on an empty data dir, copies the printed one-time
 * sign-in link into Chromium, creates a blog, writes a Korean post with a pasted image, sees the
 * preview equal the published page's content, publishes and reads the live page, edits and
 * restores from History, shares a draft's preview with someone who has no session, meets a
 * two-tab conflict without losing a word, schedules a post in Seoul time, looks after the blog
 * (settings, domain, webhooks, analytics, keys, account) and signs out. axe-core runs on every
 * dashboard page on the way; a CSP refusal or an uncaught error on any page fails the step.
 * The steps share one server, browser and session, and run in order (vitest runs a file's tests
 * in order). Needs `npx tsc -p . && npm run bundle --silent` first (docs/testing.md).
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/harness/chromium.js';
import { composeHangul, editorText, pasteFile } from '../support/editorInput.js';
import { type SpawnedServer, spawnServer } from '../support/spawnedServer.js';

/** expect.poll with room for a loaded machine (its 1 s default is not); a pass returns at once. */
const eventually = <T>(read: () => T | Promise<T>, message?: string) => expect.poll(read, { timeout: 30_000, interval: 100, ...(message ? { message } : {}) });

/** Each step does several page loads and saves; a loaded machine needs room, a quiet one takes seconds. */
const STEP = { timeout: 180_000 };

/**
 * The HTML the Preview region shows for the post's content: the region holds a sandboxed frame
 * of the blog's theme (titled "Preview…"), whose document has the content in `.post-content`.
 */
function previewContentHtml(page: Page): Promise<string> {
  return page.getByRole('region', { name: 'Preview', exact: true }).frameLocator('iframe[title^="Preview"]').locator('.post-content').first().innerHTML();
}

/**
 * What may differ between the preview and the published page, and only that: the preview names
 * media on the blog's host with absolute URLs (the dashboard is on the API host, so root-relative
 * `/media/…` would ask the wrong host) where the page uses root-relative paths, and the
 * whitespace between tags depends on where the HTML was parsed (a template vs a whole page).
 */
function normalised(html: string): string {
  return html
    .replace(/https?:\/\/[^/"'\s]+(\/media\/)/g, '$1')
    .replace(/>\s+</g, '><')
    .trim();
}

const AXE_READS_FRAME_CSS = /^Connecting to '[^']*\/preview\/assets\/[^']*\.css' violates .*default-src 'none'/;

/** axe-core's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page, name: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('a new user’s first hour with the dashboard, in Chromium, against the built server', () => {
  let server: SpawnedServer;
  let browser: Browser;
  /** The person's browser: one profile, so every tab shares the session cookie. */
  let context: BrowserContext;
  let page: Page;
  let png: string;
  const problems: string[] = [];
  const audited = new Set<string>();

  let blogId = '';
  let blogOrigin = '';
  let slug = '';
  let draftSlug = '';
  const firstParagraph = '한글로 쓴 첫 문단입니다.';
  const editedParagraph = '정상에서 본 풍경.';

  /** The API as the bootstrap key sees it: the same account the browser signed in to. */
  async function v1(path: string, init: { blog?: boolean; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${server.apiKey}`, ...init.headers };
    if (init.blog) headers['x-blog-id'] = blogId;
    const res = await fetch(`${server.baseUrl}/v1${path}`, { headers });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  const post = async (s: string) => (await v1(`/posts/${encodeURIComponent(s)}`, { blog: true })).body;

  /** Every page of every context reports CSP refusals and uncaught errors into `problems`. */
  function watch(target: BrowserContext): void {
    target.on('console', (message) => {
      // axe-core reads the preview frame's stylesheet with a fetch of its own, which the frame's
      // CSP (no connect-src) refuses: the tool's request, never one the page makes.
      if (AXE_READS_FRAME_CSS.test(message.text())) return;
      if (message.type() === 'error' && /Content Security Policy|Refused/i.test(message.text())) problems.push(`${message.page()?.url()}: ${message.text()}`);
    });
    target.on('weberror', (error) => problems.push(`${error.page()?.url()}: ${error.error().message}`));
  }

  /** Opens a dashboard page in the person's tab, waits for what shows its data loaded, runs axe-core once per page name. */
  async function visit(name: string, path: string, ready: string, tab: Page = page): Promise<void> {
    const response = await tab.goto(`${server.baseUrl}${path}`);
    expect(response?.status(), path).toBe(200);
    await tab.locator(ready).first().waitFor({ timeout: 30_000 });
    await audit(name, tab);
  }

  async function audit(name: string, tab: Page = page): Promise<void> {
    expect(await seriousViolations(tab, name)).toEqual([]);
    audited.add(name);
  }

  async function openEditor(tab: Page, postSlug: string): Promise<void> {
    await tab.goto(`${server.baseUrl}/dashboard/blogs/${blogId}/posts/${encodeURIComponent(postSlug)}`);
    await eventually(() => tab.locator('#editor').isVisible()).toBe(true);
    await eventually(() => editorText(tab)).not.toBe('');
  }

  /**
   * A reader's view of a page on the blog's host once publishing has put `text` there (or, with
   * `absent`, taken it away). Pages are cached for a minute (`max-age=60`), so after the first
   * load a reload asks again, as a reader's reload button does.
   */
  async function readLive(reader: Page, url: string, text: string, absent = false): Promise<void> {
    let loaded = false;
    await eventually(
      async () => {
        const answer = loaded && reader.url() === url ? await reader.reload() : await reader.goto(url);
        loaded = true;
        const shown = ((await reader.locator('.post-content').textContent()) ?? '').includes(text);
        return answer?.status() === 200 && shown !== absent;
      },
      `${url} ${absent ? 'no longer shows' : 'shows'} "${text}"`,
    ).toBe(true);
  }

  const saveState = (tab: Page) => tab.locator('#save-state');

  beforeAll(async () => {
    // The operator's first start: an empty data dir, a free port, the default plan. The helper
    // turns social cards off, as every spawned-server test does (a card is seconds of drawing).
    server = await spawnServer({ FOLIO_LOG_LEVEL: 'warn' });
    png = (
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7bd5' } })
        .png()
        .toBuffer()
    ).toString('base64');
    browser = await launchChromium();
    // The author is in Seoul: Schedule reads the time in this zone.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Seoul', locale: 'ko-KR' });
    watch(context);
    page = await context.newPage();
  }, 120_000);
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    // Stops the process by its pid (SIGKILL to the child spawned above) and removes its data dir.
    await server?.cleanup();
  });

  it('opens the printed sign-in link, sees no blogs yet, and creates one with the form', STEP, async () => {
    // As a person copies it from the terminal: the banner line " Sign in: <url>".
    const banner = server.lines.map((l) => l.text).join('\n');
    const link = / Sign in: (\S+)/.exec(banner)?.[1];
    expect(link, banner).toMatch(new RegExp(`^${server.baseUrl}/dashboard/sign-in/[A-Za-z0-9_-]{43}$`));
    await page.goto(link!);
    await page.waitForURL(`${server.baseUrl}/dashboard`);
    expect((await context.cookies()).some((c) => c.name === 'folio_session')).toBe(true);
    const list = page.locator('#blogs-list');
    await eventually(() => list.textContent()).not.toContain('Loading');
    expect(await list.locator('table').count()).toBe(0);
    await audit('blogs (empty)');

    await page.getByLabel('Name', { exact: true }).fill('제주 일기');
    await page.getByLabel('Address (slug)').fill('jeju');
    await page.getByRole('button', { name: 'Create blog' }).click();
    await page.waitForURL(/\/dashboard\/blogs\/[^/]+\/posts$/);
    blogId = new URL(page.url()).pathname.split('/')[3]!;
    const blog = (await v1(`/blogs/${blogId}`)).body;
    expect(blog).toMatchObject({ slug: 'jeju', name: '제주 일기' });
    // The blog's address: `jeju.localhost:<port>` (FOLIO_SERVICE_DOMAIN defaults to localhost:<port>), which Chromium sends to loopback.
    blogOrigin = new URL(blog.url).origin;
    expect(blogOrigin).toBe(`http://jeju.localhost:${server.port}`);
    await eventually(() => page.locator('#posts-summary').textContent()).toBe('No posts here yet.');
    await audit('posts (empty)');

    await visit('blogs', '/dashboard', '#blogs-list table');
    expect(await page.getByRole('link', { name: '제주 일기', exact: true }).getAttribute('href')).toBe(`/dashboard/blogs/${blogId}/posts`);
    // The blog's address, as the API gives it.
    await eventually(() => page.getByRole('link', { name: `jeju.localhost:${server.port}` }).getAttribute('href')).toBe(blog.url);
  });

  it('writes a Korean post with the IME and a pasted image; the upload placeholder becomes the image', STEP, async () => {
    await page.goto(`${server.baseUrl}/dashboard/blogs/${blogId}/posts`);
    await page.getByRole('link', { name: 'New post' }).click();
    await page.waitForURL(`${server.baseUrl}/dashboard/blogs/${blogId}/new-post`);
    await eventually(() => page.locator('#editor').isVisible()).toBe(true);
    await page.getByLabel('Title', { exact: true }).fill('한라산 등반기');
    await page.getByRole('textbox', { name: 'Content' }).click();
    await composeHangul(page);
    await page.keyboard.insertText('로 쓴 첫 문단입니다.');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    // A screenshot pasted from the clipboard.
    await pasteFile(page, { name: 'image.png', type: 'image/png', base64: png });
    await eventually(() => editorText(page)).toMatch(new RegExp(`!\\[Image\\]\\(${blogOrigin}/media/[^)]+\\.png\\)`));
    expect(await editorText(page)).not.toContain('Uploading');
    expect(await editorText(page)).toMatch(/^한글로 쓴 첫 문단입니다\.\n\n!\[Image\]/);
    // Autosaved as a draft; the address becomes the post's.
    await eventually(() => saveState(page).textContent()).toBe('All changes saved');
    await eventually(() => new URL(page.url()).pathname).toMatch(/\/posts\/[^/]+$/);
    slug = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    expect(slug).toBe('한라산-등반기');
    const saved = await post(slug);
    expect(saved).toMatchObject({ status: 'draft', title: '한라산 등반기' });
    expect(saved.content_md).toBe(await editorText(page));
    await eventually(() => previewContentHtml(page)).toContain(firstParagraph);
    await audit('editor');
  });

  it('publishes; the preview’s HTML equals the published page’s content; the live page shows the title, the text and the image', STEP, async () => {
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await eventually(() => page.locator('#post-status').textContent()).toBe('Status: published');
    const live = page.getByRole('link', { name: 'View live page' });
    await eventually(() => live.isVisible()).toBe(true);
    expect(await live.getAttribute('href')).toBe(`${blogOrigin}/${encodeURIComponent(slug)}`);

    // Follow the dashboard's link (it opens a new tab) to the blog's host.
    const opened = context.waitForEvent('page');
    await live.click();
    const reader = await opened;
    await reader.waitForLoadState();
    await readLive(reader, `${blogOrigin}/${encodeURIComponent(slug)}`, firstParagraph);
    expect(await reader.locator('h1').textContent()).toContain('한라산 등반기');
    const image = reader.locator('.post-content img');
    expect(await image.count()).toBe(1);
    // Loaded, whatever its size: a srcset's width descriptor makes naturalWidth the slot's width, not the file's.
    await eventually(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

    const published = normalised(await reader.locator('.post-content').first().innerHTML());
    expect(published).toContain(firstParagraph);
    expect(published).toMatch(/<img [^>]*src="\/media\/[^"]+\.png"/);
    await eventually(async () => normalised(await previewContentHtml(page)), 'the preview is the published content').toBe(published);
    await reader.close();
  });

  it('edits and saves the live page, then restores the published text from History', STEP, async () => {
    await openEditor(page, slug);
    const before = await post(slug);
    await page.getByRole('textbox', { name: 'Content' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText(`\n\n${editedParagraph}`);
    await eventually(() => saveState(page).textContent()).toBe('Unsaved changes');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => saveState(page).textContent()).toBe('All changes saved');
    const reader = await context.newPage();
    await readLive(reader, `${blogOrigin}/${encodeURIComponent(slug)}`, editedParagraph);

    // Publishing sealed the first text as a revision of its own; the edit is the newest.
    await page.getByRole('button', { name: 'History' }).click();
    const dialog = page.getByRole('dialog', { name: 'History' });
    const revisions = dialog.getByRole('list', { name: 'Revisions, newest first' }).getByRole('button');
    await eventually(() => revisions.count()).toBeGreaterThanOrEqual(2);
    await revisions.nth(1).click();
    await eventually(() => dialog.locator('#history-diff').textContent()).toContain(`− ${editedParagraph}`);
    await audit('editor (history)');
    page.once('dialog', (confirm) => void confirm.accept());
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await eventually(() => dialog.isVisible()).toBe(false);
    await eventually(() => editorText(page)).toBe(before.content_md);
    expect(await saveState(page).textContent()).toBe('All changes saved');
    expect((await post(slug)).content_md).toBe(before.content_md);
    // The live page follows the restore.
    await readLive(reader, `${blogOrigin}/${encodeURIComponent(slug)}`, editedParagraph, true);
    expect(await reader.locator('.post-content').textContent()).toContain(firstParagraph);
    await reader.close();
  });

  it('shares a draft’s preview; someone without a session reads it with the theme, privately', STEP, async () => {
    await visit('posts', `/dashboard/blogs/${blogId}/posts`, '#posts-list table');
    expect(await page.locator('#posts-list tbody tr a:not(.tag)').allTextContents()).toEqual(['한라산 등반기']);
    await page.getByRole('link', { name: 'New post' }).click();
    await eventually(() => page.locator('#editor').isVisible()).toBe(true);
    await page.getByLabel('Title', { exact: true }).fill('공유할 초안');
    await page.getByRole('textbox', { name: 'Content' }).click();
    await page.keyboard.insertText('아직 공개하지 않은 초안입니다.');
    await eventually(() => saveState(page).textContent()).toBe('All changes saved');
    await eventually(() => new URL(page.url()).pathname).toMatch(/\/posts\/[^/]+$/);
    draftSlug = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    expect((await post(draftSlug)).status).toBe('draft');

    await page.getByRole('button', { name: 'Share preview' }).click();
    const field = page.getByLabel('Preview link');
    await eventually(() => field.inputValue()).toMatch(/^https?:\/\//);
    const url = await field.inputValue();
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/preview/[A-Za-z0-9_-]{43}$`));

    // Another person's browser: no cookies, no session.
    const stranger = await browser.newContext();
    try {
      expect(await stranger.cookies()).toEqual([]);
      const tab = await stranger.newPage();
      const requested: string[] = [];
      tab.on('request', (request) => void requested.push(new URL(request.url()).pathname));
      const response = await tab.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const headers = await response!.allHeaders();
      expect(headers['cache-control']).toBe('private, no-store');
      expect(headers['x-robots-tag']).toContain('noindex');
      expect(await tab.locator('h1').textContent()).toContain('공유할 초안');
      expect(await tab.locator('.post-content').textContent()).toContain('아직 공개하지 않은 초안입니다.');
      // The theme's stylesheet applied: its skip link is moved off screen, its background drawn.
      expect(requested.some((path) => /^\/preview\/assets\/site\.[0-9a-f]{8}\.css$/.test(path))).toBe(true);
      const styles = await tab.evaluate(() => ({
        skipLink: getComputedStyle(document.querySelector('.skip-link')!).position,
        background: getComputedStyle(document.body).backgroundColor,
      }));
      expect(styles).toEqual({ skipLink: 'absolute', background: expect.not.stringMatching(/^rgba\(0, 0, 0, 0\)$/) });
      expect(await stranger.cookies()).toEqual([]);
    } finally {
      await stranger.close();
    }
  });

  it('keeps tab A’s text when tab B saved first, with an alert offering Reload and Show difference', STEP, async () => {
    const tabA = await context.newPage();
    const tabB = await context.newPage();
    try {
      await openEditor(tabA, slug);
      await openEditor(tabB, slug);
      await tabB.getByRole('textbox', { name: 'Content' }).click();
      await tabB.keyboard.press('Control+End');
      await tabB.keyboard.insertText('\n\n두 번째 탭에서 고친 문장.');
      await tabB.getByRole('button', { name: 'Save', exact: true }).click();
      await eventually(() => saveState(tabB).textContent()).toBe('All changes saved');

      await tabA.getByRole('textbox', { name: 'Content' }).click();
      await tabA.keyboard.press('Control+End');
      await tabA.keyboard.insertText('\n\n첫 번째 탭에서 쓴 문장.');
      await tabA.getByRole('button', { name: 'Save', exact: true }).click();
      const alert = tabA.getByRole('alert');
      await eventually(() => alert.count()).toBe(1);
      expect(await alert.getByRole('button', { name: 'Reload' }).isVisible()).toBe(true);
      expect(await alert.getByRole('button', { name: 'Show difference' }).isVisible()).toBe(true);
      // Nothing lost: tab A keeps its text, the server keeps tab B's.
      expect(await editorText(tabA)).toContain('첫 번째 탭에서 쓴 문장.');
      const saved = await post(slug);
      expect(saved.content_md).toContain('두 번째 탭에서 고친 문장.');
      expect(saved.content_md).not.toContain('첫 번째 탭에서 쓴 문장.');
      await alert.getByRole('button', { name: 'Show difference' }).click();
      await eventually(() => alert.locator('.diff').textContent()).toContain('+ 첫 번째 탭에서 쓴 문장.');
      expect(await editorText(tabA)).toContain('첫 번째 탭에서 쓴 문장.');
      await audit('editor (conflict)', tabA);
    } finally {
      // Tab A still has its unsaved text: closed without the beforeunload question.
      await tabA.close();
      await tabB.close();
    }
  });

  it('schedules the draft at a time in Seoul, stored as UTC', STEP, async () => {
    // The first start's account is on FOLIO_DEFAULT_PLAN (enterprise by default), which schedules.
    const account = (await v1('/account')).body;
    expect(account.plan).toBe('enterprise');
    await openEditor(page, draftSlug);
    expect(await page.locator('#schedule-zone').textContent()).toBe('Asia/Seoul');
    const schedule = page.getByRole('button', { name: 'Schedule', exact: true });
    expect(await schedule.isDisabled()).toBe(false);
    await page.getByLabel(/Publish at/).fill('2031-01-15T09:30');
    await schedule.click();
    await eventually(() => page.locator('#post-status').textContent()).toBe('Status: scheduled');
    const scheduled = await post(draftSlug);
    expect(scheduled.status).toBe('scheduled');
    // 09:30 in Seoul (UTC+9, no daylight saving) is 00:30 UTC.
    expect(scheduled.scheduled_at).toBe('2031-01-15T00:30:00.000Z');
  });

  it('looks after the blog: settings, domain, webhooks, analytics, keys and account pages load their data', STEP, async () => {
    const blogPage = (name: string) => `/dashboard/blogs/${blogId}/${name}`;
    await visit('settings', blogPage('settings'), '#t-customCss:enabled');
    await visit('domain', blogPage('domain'), '#domain-body dl, #domain-body form');
    await visit('webhooks', blogPage('webhooks'), '#webhooks-list table, #webhooks-list p:not(.muted)');
    await visit('analytics', blogPage('analytics'), '.views-chart');
    await visit('keys', '/dashboard/keys', '#keys-list table');
    await visit('account', '/dashboard/account', '#account-facts:not([hidden])');
    expect(await page.locator('[data-field="plan"]').textContent()).toContain('enterprise');
    await eventually(() => page.getByText('(this browser)').count()).toBe(1);
  });

  it('signs out: the dashboard shows the sign-in page and the old cookie no longer works on /v1', STEP, async () => {
    await page.goto(`${server.baseUrl}/dashboard`);
    const cookie = (await context.cookies()).find((c) => c.name === 'folio_session');
    expect(cookie).toBeDefined();
    const withOldCookie = () => fetch(`${server.baseUrl}/v1/account`, { headers: { cookie: `folio_session=${cookie!.value}` } });
    expect((await withOldCookie()).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await page.waitForURL(`${server.baseUrl}/dashboard/sign-in`);
    expect((await context.cookies()).find((c) => c.name === 'folio_session')).toBeUndefined();
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.waitForURL(`${server.baseUrl}/dashboard/sign-in`);
    await eventually(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    await audit('sign-in');

    const refused = await withOldCookie();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('ran axe-core on every dashboard page it visited', () => {
    for (const name of ['blogs', 'posts', 'editor', 'settings', 'domain', 'webhooks', 'analytics', 'keys', 'account', 'sign-in'])
      expect(audited, name).toContain(name);
  });
});
