/**
 * Signing in as a person does, in Chromium: the one-time link sets the session cookie, the
 * account page loads its data from /v1 with it (no CSP violation), the password can be set from
 * the page, a form posted by another origin's page cannot sign the browser out, and Sign out
 * does. Needs the dashboard bundle (`npm run bundle`, part of npm test).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/harness/chromium.js';
import { loginLink } from '../support/dashboardSession.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** axe-core's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('dashboard sign-in in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let evil: Server;
  let evilOrigin: string;
  beforeAll(async () => {
    t = await startTestApp();
    t.folio.db.prepare('UPDATE accounts SET email = ? WHERE id = ?').run('owner@example.com', t.accountId);
    browser = await launchChromium();
    // Another origin (another port: same site for cookies, so only the origin check stands in the way).
    evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<!doctype html><form id="f" method="post" action="${t.baseUrl}/dashboard/sign-out"><input name="csrf" value="guess"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('link → cookie → account page → password → a foreign form cannot sign out → Sign out', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    tab.on('pageerror', (err) => problems.push(err.message));

    await tab.goto(await loginLink(t));
    const cookie = (await context.cookies()).find((c) => c.name === 'folio_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    await tab.goto(`${t.baseUrl}/dashboard/account`);
    await tab.getByText('enterprise', { exact: true }).waitFor();
    await tab.getByText('(this browser)').waitFor();
    expect(await tab.locator('meta[name="folio-csrf"]').getAttribute('content')).toMatch(/^[\w-]{43}$/);

    expect(await seriousViolations(tab)).toEqual([]);
    // Keyboard: the skip link is the first stop.
    await tab.keyboard.press('Tab');
    expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');

    await tab.getByLabel('New password').fill('a password from the page');
    await tab.getByRole('button', { name: 'Change password' }).click();
    await tab.getByText('Password changed.').waitFor();

    // Another origin's page posts the sign-out form: refused, the session lives on.
    const other = await context.newPage();
    const refused = other.waitForResponse((res) => res.url().endsWith('/dashboard/sign-out'));
    await other.goto(evilOrigin);
    expect((await refused).status()).toBe(403);
    await other.close();
    const still = await tab.evaluate(async () => (await fetch('/v1/account')).status);
    expect(still).toBe(200);

    await tab.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await tab.waitForURL(`${t.baseUrl}/dashboard/sign-in`);
    expect((await context.cookies()).find((c) => c.name === 'folio_session')).toBeUndefined();
    const after = await tab.evaluate(async () => (await fetch('/v1/account')).status);
    expect(after).toBe(401);

    expect(await seriousViolations(tab)).toEqual([]);
    // The password set on the page signs in.
    await tab.getByLabel('Email').fill('owner@example.com');
    await tab.getByLabel('Password').fill('a password from the page');
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.waitForURL(`${t.baseUrl}/dashboard`);
    expect((await context.cookies()).some((c) => c.name === 'folio_session')).toBe(true);
    // The 401 is this test's own fetch after signing out; /dashboard (the blogs list) is another page's.
    expect(problems.filter((p) => !/status of (401|404)/.test(p))).toEqual([]);
    await context.close();
  });
});
