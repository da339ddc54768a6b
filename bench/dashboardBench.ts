/**
 * `npm run bench -- --only dashboard`: the first load of the dashboard's posts list on a
 * 10,000-post blog (issue #30: ≤ 1 s on this machine), in headless Chromium against the bundled
 * server in its own process. Each round is a fresh browser context (no cache: the shell, its
 * scripts and styles and the API call are all fetched) with the session cookie, timed from the
 * navigation's start to the page's own mark after it drew the list (`folio:posts-rendered`).
 * The anchor, measured in the same rounds and the same browser, is one bare
 * `GET /v1/posts?per_page=20` round trip from the page: the API call the list is made of.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { AccountsRepo } from '../src/db/accountsRepo.js';
import { openDatabase } from '../src/db/database.js';
import { LoginLinksRepo } from '../src/db/loginLinksRepo.js';
import { SqliteClient } from '../src/db/sql/sqliteClient.js';
import { systemClock } from '../src/lib/clock.js';
import { LoginLinksService } from '../src/services/loginLinks.js';
import { launchChromium } from './harness/chromium.js';
import { percentile } from './harness/stats.js';
import { importCorpus, removeImported } from './importCorpus.js';
import type { CorpusPost } from './corpus.js';
import { startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const ROUNDS = 9;
const TAGS = ['garden', 'kitchen', 'travel', 'notes', '글쓰기', 'rust', 'sqlite', 'books'];

/** Short synthetic posts: the list never reads a body, so the corpus's long ones would only slow the import. */
function posts(n: number): CorpusPost[] {
  return Array.from({ length: n }, (_, i) => ({
    title: `Post ${i + 1}: ${TAGS[i % TAGS.length]} and more`,
    slug: `post-${i + 1}`,
    date: new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString().slice(0, 10),
    tags: [TAGS[i % TAGS.length]!, TAGS[(i * 7) % TAGS.length]!].filter((t, j, all) => all.indexOf(t) === j),
    lang: 'en',
    body: `A short note number ${i + 1}.`,
  }));
}

export async function runDashboardBench(count = 10_000): Promise<BenchRow[]> {
  const area = `dashboard posts list (${count.toLocaleString('en')} posts)`;
  const blog = await importCorpus(posts(count), 'dashboard');
  const server = await startBenchServer({ FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off' });
  const browser = await launchChromium();
  try {
    const account = (await (await fetch(`${server.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${blog.apiKey}` } })).json()) as { id: string };
    // Signed in as a person is: a one-time link, made by the service that prints them, on the
    // same SQLite file the server has open (WAL).
    const db = openDatabase(join(blog.dataDir, 'folio.db'));
    const sql = new SqliteClient(db);
    let link: string | undefined;
    try {
      const links = new LoginLinksService({
        links: new LoginLinksRepo(sql),
        accounts: new AccountsRepo(sql),
        clock: systemClock,
        apiBaseUrl: `${server.baseUrl}/v1`,
      });
      link = (await links.create(account.id))?.url;
    } finally {
      await sql.close();
      db.close();
    }
    if (!link) throw new Error(`no account ${account.id} for a login link`);
    const signIn = await browser.newContext();
    await (await signIn.newPage()).goto(link);
    const cookies = await signIn.cookies();
    if (cookies.length === 0) throw new Error('the login link set no cookie');
    await signIn.close();

    const url = `${server.baseUrl}/dashboard/blogs/${blog.blogId}/posts`;
    const loads: number[] = [];
    const anchors: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies(cookies);
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName('folio:posts-rendered').length > 0, undefined, { timeout: 30_000 });
      const rows = await page.locator('#posts-list tbody tr').count();
      if (rows !== 20) throw new Error(`the list drew ${rows} rows, not 20`);
      loads.push(await page.evaluate(() => performance.getEntriesByName('folio:posts-rendered')[0]!.startTime));
      anchors.push(
        await page.evaluate(async (blogId) => {
          const start = performance.now();
          const res = await fetch('/v1/posts?per_page=20', { headers: { 'X-Blog-Id': blogId }, credentials: 'same-origin' });
          await res.json();
          return performance.now() - start;
        }, blog.blogId),
      );
      await context.close();
    }
    // The first round starts every cache (the server's and Chromium's own): the rest are compared.
    const measured = loads.slice(1);
    const anchor = percentile(anchors.slice(1), 0.5);
    const median = percentile(measured, 0.5);
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    return [
      {
        area,
        measure: `first load, navigation → list drawn (fresh context, no cache), median of ${measured.length}; load ${load}`,
        value: `${median.toFixed(0)} ms`,
        target: '≤ 1000 ms',
      },
      { area, measure: 'first load, slowest round', value: `${Math.max(...measured).toFixed(0)} ms`, target: '≤ 1000 ms' },
      { area, measure: 'anchor: one GET /v1/posts?per_page=20 from the page, median', value: `${anchor.toFixed(1)} ms` },
      { area, measure: 'first load / anchor', value: `${(median / anchor).toFixed(1)}×` },
    ];
  } finally {
    await browser.close();
    await server.stop();
    removeImported(blog);
  }
}
