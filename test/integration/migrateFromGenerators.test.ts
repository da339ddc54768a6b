/**
 * Issue 27 A4 acceptance: a 20-file Hugo/Jekyll folder pushed end to end with the real `folio`
 * command (a subprocess) against the real app: dates kept, every alias answering 301 to its post
 * through the site server, bundles slugged by their folder, drafts never published, shortcodes
 * and Liquid tags reported by name; and a dry run that refuses what the API refuses.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
let t: TestApp;
let blog: { id: string; slug: string };
const dirs: string[] = [];

function folio(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, FOLIO_API_URL: t.baseUrl, FOLIO_API_KEY: t.key } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-migrate-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** POST, PUT and DELETE requests the API answered so far, from GET /metrics. */
async function writesSoFar(): Promise<number> {
  const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^folio_http_requests_total\{([^}]*)\} (\d+)/gm)) {
    if (/method="(POST|PUT|DELETE)"/.test(m[1]!) && /route="\/v1\//.test(m[1]!)) n += Number(m[2]);
  }
  return n;
}

const post = async (slug: string) => (await t.request('GET', `/v1/posts/${encodeURIComponent(slug)}`, { blogId: blog.id })).body;
const site = (path: string) => visit(t.baseUrl, `${blog.slug}.localhost:3000`, path);

/** Ten Hugo files (bundles, aliases, a draft, shortcodes, a section page) and ten Jekyll files. */
const SITE: Record<string, string> = {
  'content/posts/_index.md': '---\ntitle: Posts\n---\nThe section page.',
  'content/posts/first-hugo.md':
    '---\ntitle: First Hugo post\ndate: 2019-05-01T09:00:00+09:00\ndraft: false\naliases: [/2019/05/first-hugo/, /old/first.html]\n---\nHello from Hugo.',
  'content/posts/bundle-one/index.md': '---\ntitle: Bundle one\ndate: 2019-06-10\naliases: ["old-bundle-one/"]\n---\nA page bundle.',
  'content/posts/bundle-two/index.md': "---\ntitle: Bundle two\ndate: '2019-07-01 08:00:00 +0000'\n---\nAnother bundle.",
  'content/posts/bundle-three/index.md': '---\ntitle: Bundle three\nslug: chosen-slug\ndate: 2019-08-01T00:00:00Z\n---\nAn explicit slug wins over the folder.',
  'content/posts/with-shortcodes.md':
    '---\ntitle: With shortcodes\ndate: 2019-09-01\n---\nBefore.\n\n{{< figure src="cat.png" title="A cat" >}}\n\n{{% notice info %}}Careful.{{% /notice %}}\n\n```\n{{< youtube abc >}}\n```\n\nIndented code:\n\n    {{< gist someone 123 >}}\n\nAfter.',
  'content/posts/hugo-draft.md': '---\ntitle: Hugo draft\ndate: 2019-10-01\ndraft: true\n---\nNot yet.',
  'content/posts/korean/index.md': '---\ntitle: 서버를 옮긴 이야기\ndate: 2019-11-11T11:11:11+09:00\naliases: [/2019/11/서버-이사/]\n---\n서버를 옮겼다.',
  'content/posts/tagged.md': '---\ntitle: Tagged\ndate: 2019-12-01\ntags: [hugo, moving]\naliases: [/a/, /b/c/, /d.html]\n---\nThree old addresses.',
  'content/posts/last-hugo.md':
    '---\ntitle: Last Hugo post\ndate: 2020-01-01T00:00:00Z\naliases: [/2020/01/last-hugo/, ../2020/last.html]\n---\nThe newest of them.',
  '_posts/2018-03-04-jekyll-one.md': '---\nlayout: post\ntitle: Jekyll one\npermalink: /2018/03/04/jekyll-one.html\n---\nDated by its file name.',
  '_posts/2018-04-05-jekyll-two.md':
    "---\ntitle: Jekyll two\ndate: '2018-04-05 10:30:00 +0900'\nredirect_from: [/old-jekyll-two/, /blog/jekyll-two/]\n---\nDated by its front matter.",
  '_posts/2018-05-06-liquid.md':
    '---\ntitle: Liquid\n---\n{% highlight ruby %}\nputs 1\n{% endhighlight %}\n\n{% include note.html %}\n\nMore at {{ site.url }}/about.',
  '_posts/2018-06-07-unpublished.md': '---\ntitle: Unpublished\npublished: false\n---\nKept back.',
  '_posts/2018-07-08-permalink-dir.md': '---\ntitle: Permalink folder\npermalink: /blog/2018/permalink-dir/\n---\nAn old folder address.',
  '_posts/2018-08-09-jekyll-three.md': '---\ntitle: Jekyll three\n---\nPlain.',
  '_posts/2018-09-10-redirect-string.md': '---\ntitle: Redirect string\nredirect_from: /single-old/\n---\nOne old address as a string.',
  '_posts/2018-10-11-undated-name.md': '---\ntitle: Jekyll four\ndate: 2018-10-11T12:00:00Z\n---\nBoth dates agree.',
  '_drafts/draft-idea.md': '---\ntitle: Draft idea\n---\nNever published.',
  '_drafts/draft-with-date.md': '---\ntitle: Draft with date\nstatus: published\ndate: 2018-12-12\n---\nStill never published.',
};

beforeAll(async () => {
  expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
  t = await startTestApp();
  blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'migrated', name: 'Migrated' } })).body;
});
afterAll(async () => {
  await t.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a Hugo/Jekyll folder pushed with folio push', () => {
  const dir = folder(SITE);

  it('creates every post but the section page, and reports the section page, the layout and the shortcodes by name', async () => {
    expect(Object.keys(SITE)).toHaveLength(20);
    const run = await folio('push', dir, '--blog', 'migrated');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/19 created, 0 updated, 0 deleted, 0 images uploaded, 0 unchanged, 0 failed/);
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('folio: warning: '));
    expect(warnings).toEqual([
      'folio: warning: _posts/2018-03-04-jekyll-one.md: layout "post" ignored: the blog\'s theme lays out every post',
      'folio: warning: _posts/2018-05-06-liquid.md: shortcodes or Liquid tags Folio cannot render, shown as literal text: highlight, include, site.url',
      'folio: warning: content/posts/_index.md: a Hugo section page (_index.md) is not a post: skipped',
      'folio: warning: content/posts/with-shortcodes.md: shortcodes or Liquid tags Folio cannot render, shown as literal text: figure, notice',
    ]);
  });

  it('keeps the dates the files give (front matter, or a Jekyll file name)', async () => {
    const dates: Record<string, string> = {
      'first-hugo': '2019-05-01T00:00:00.000Z',
      'bundle-one': '2019-06-10T00:00:00.000Z',
      'bundle-two': '2019-07-01T08:00:00.000Z',
      'chosen-slug': '2019-08-01T00:00:00.000Z',
      korean: '2019-11-11T02:11:11.000Z',
      'last-hugo': '2020-01-01T00:00:00.000Z',
      'jekyll-one': '2018-03-04T00:00:00.000Z',
      'jekyll-two': '2018-04-05T01:30:00.000Z',
      'undated-name': '2018-10-11T12:00:00.000Z',
    };
    for (const [slug, date] of Object.entries(dates)) {
      const got = await post(slug);
      expect(got.status, slug).toBe('published');
      expect(got.published_at, slug).toBe(date);
    }
    // Lists and feeds follow those dates, not the order of the push.
    const feed = JSON.parse((await site('/feed.json')).text) as { items: { url: string }[] };
    expect(feed.items.slice(0, 3).map((item) => new URL(item.url).pathname)).toEqual(['/last-hugo', '/tagged', `/korean`]);
    expect((await site('/archive/2018/03/')).text).toContain('Jekyll one');
  });

  it('slugs bundles by their folder and Jekyll posts without their date', async () => {
    for (const slug of ['bundle-one', 'bundle-two', 'korean', 'chosen-slug', 'jekyll-one', 'jekyll-three', 'liquid']) {
      expect((await site(`/${slug}`)).status, slug).toBe(200);
    }
    expect((await site('/index')).status).toBe(404);
  });

  it('never publishes drafts: Hugo draft: true, Jekyll published: false, and everything under _drafts/', async () => {
    for (const slug of ['hugo-draft', 'unpublished', 'draft-idea', 'draft-with-date']) {
      const got = await post(slug);
      expect(got.status, slug).toBe('draft');
      expect((await site(`/${slug}`)).status, slug).toBe(404);
    }
  });

  it('answers every alias, permalink and redirect_from with a 301 to its post through the site server', async () => {
    const aliases: [string, string][] = [
      ['/2019/05/first-hugo/', '/first-hugo'],
      ['/old/first.html', '/first-hugo'],
      // Relative aliases are resolved beside the page, as Hugo does.
      ['/posts/old-bundle-one/', '/bundle-one'],
      ['/2020/last.html', '/last-hugo'],
      [`/2019/11/${encodeURIComponent('서버-이사')}/`, '/korean'],
      ['/a/', '/tagged'],
      ['/b/c', '/tagged'],
      ['/d.html', '/tagged'],
      ['/2020/01/last-hugo/', '/last-hugo'],
      ['/2018/03/04/jekyll-one.html', '/jekyll-one'],
      ['/old-jekyll-two/', '/jekyll-two'],
      ['/blog/jekyll-two/', '/jekyll-two'],
      ['/blog/2018/permalink-dir/', '/permalink-dir'],
      ['/single-old', '/redirect-string'],
    ];
    for (const [path, target] of aliases) {
      const answer = await site(path);
      expect(answer.status, path).toBe(301);
      expect(answer.headers.location, path).toBe(target);
    }
    expect((await post('tagged')).aliases).toEqual(['/a/', '/b/c/', '/d.html']);
  });

  it('sends nothing on a second push', async () => {
    const before = await writesSoFar();
    const again = await folio('push', dir, '--blog', 'migrated');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^no changes/m);
    expect(await writesSoFar()).toBe(before);
  });

  it('a dry run of a change of status alone plans it without a refusal', async () => {
    writeFileSync(join(dir, '_posts/2018-08-09-jekyll-three.md'), '---\ntitle: Jekyll three\npublished: false\n---\nPlain.');
    const dry = await folio('push', dir, '--blog', 'migrated', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would update _posts/2018-08-09-jekyll-three.md (jekyll-three: published → draft)');
  });

  it('a dry run refuses what the API refuses (a future date, a site path as alias, an alias another file has), sending nothing', async () => {
    const bad = folder({
      'future.md': '---\ntitle: From the future\ndate: 2099-01-01\n---\nToo early.',
      'reserved.md': '---\ntitle: Reserved alias\naliases: [/tags/old/]\n---\nNo.',
      'query.md': '---\ntitle: Query alias\naliases: ["/old/?p=1"]\n---\nNo.',
      'twice-a.md': '---\ntitle: Twice A\naliases: [/shared/]\n---\nA.',
      'twice-b.md': '---\ntitle: Twice B\naliases: [/shared]\n---\nB.',
      'fine.md': '---\ntitle: Fine\ndate: 2017-01-01\n---\nFine.',
    });
    const before = await writesSoFar();
    const dry = await folio('push', bad, '--blog', 'migrated', '--dry-run');
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain('folio: future.md: the API would refuse it: bad_request: published_at must not be in the future');
    expect(dry.stderr).toMatch(/folio: reserved\.md: the API would refuse it: bad_request: .*aliases\[0\] is one of the site's own paths/);
    expect(dry.stderr).toMatch(/folio: query\.md: the API would refuse it: bad_request: .*aliases\[0\] must not have a query/);
    expect(dry.stderr).toContain('folio: twice-b.md: line 2: alias "/shared/" is also an alias of twice-a.md');
    expect(dry.stdout).toMatch(/2 would be created, 0 would be updated, 0 would be deleted, 0 images uploaded, 0 unchanged, 4 failed/);
    // A file that fails is listed as failing only, never also as planned.
    expect(
      dry.stdout
        .split('\n')
        .filter((line) => line.startsWith('would '))
        .sort(),
    ).toEqual(['would create fine.md (fine)', 'would create twice-a.md (twice-a)']);
    expect(await writesSoFar()).toBe(before);
    // The real push is refused the same way by the API itself.
    const real = await folio('push', bad, '--blog', 'migrated');
    expect(real.code).toBe(1);
    expect(real.stderr).toContain('folio: future.md: bad_request: published_at must not be in the future');
    expect(real.stderr).toMatch(/folio: reserved\.md: bad_request: .*aliases\[0\] is one of the site's own paths/);
    expect(real.stdout).toMatch(/2 created, .* 4 failed/);
    expect((await post('fine')).published_at).toBe('2017-01-01T00:00:00.000Z');
  });
});
