/**
 * The API reference at /v1/docs as a reader sees it in Chromium: Swagger UI renders every
 * operation of the document from the files Folio serves, nothing is fetched from elsewhere, and
 * the page's CSP blocks nothing it needs.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/harness/chromium.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

describe('GET /v1/docs in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders every operation with its example, from same-origin files only, without CSP violations', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    const problems: string[] = [];
    tab.on('request', (req) => {
      if (!req.url().startsWith(t.baseUrl) && !req.url().startsWith('data:')) foreign.push(req.url());
    });
    tab.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    tab.on('pageerror', (err) => problems.push(err.message));
    await tab.goto(`${t.baseUrl}/v1/docs`);
    await tab.waitForSelector('.opblock', { timeout: 30_000 });
    expect(await tab.locator('.opblock').count()).toBe(operations.length);
    expect(await tab.locator('.info .title').innerText()).toContain('Folio API');
    // Open createPost: its request example is the one the document carries.
    await tab.locator('#operations-posts-createPost .opblock-summary').click();
    await tab.waitForSelector('#operations-posts-createPost .body-param__example, #operations-posts-createPost .microlight');
    expect(await tab.locator('#operations-posts-createPost').innerText()).toContain('Sharpening a chisel');
    await tab.screenshot({ path: join(ARTIFACTS, 'api-docs.png'), fullPage: false });
    expect(foreign).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
    expect(problems).toEqual([]);
  });
});
