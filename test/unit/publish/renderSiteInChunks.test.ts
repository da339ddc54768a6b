import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSite, renderSite, type SiteInput } from '../../../src/publish/pages/fullRender.js';
import type { SitePost, SitePostSummary } from '../../../src/domain/siteTypes.js';
import { renderSiteInChunks, siteObjectCount, type ParallelRenderOptions } from '../../../src/publish/parallel/renderSiteInChunks.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { decodedPost } from '../../../src/publish/parallel/chunkPosts.js';
import { buildBlog, defaultTheme, fixturePosts, numberedPosts, templatesDir } from './siteFixtures.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface PlainObject {
  key: string;
  body: string;
  contentType: string;
  cacheControl: string;
  redirectTo: string | null;
}

/** Bodies as base64 of their UTF-8 bytes, so a string body and a Buffer body compare by bytes. */
function plain(objects: readonly SiteObject[]): PlainObject[] {
  return objects.map((o) => ({
    key: o.key,
    body: Buffer.from(o.body).toString('base64'),
    contentType: o.contentType,
    cacheControl: o.cacheControl,
    redirectTo: o.redirectTo ?? null,
  }));
}

// A few hundred posts, given out of order, with tags, Korean text and redirects; one source and
// body start with a byte order mark and hold characters outside the BMP.
const withBom: SitePost = {
  ...numberedPosts(1)[0]!,
  id: 'post_bom',
  slug: 'bom',
  contentMd: '\uFEFF한국어 source, 🐈.',
  contentHtml: '\uFEFF<p>한국어 body, 🐈.</p>',
};
const posts = [...numberedPosts(320), withBom, ...fixturePosts].reverse();
const redirects = [
  { from: 'old-post-7', to: 'post-7' },
  { from: 'post-8', to: 'post-9' },
];
const input = (): SiteInput => ({ theme: defaultTheme(), blog: buildBlog(), posts, redirects });
/** Objects renderSite itself gives as Buffers (theme assets). */

/**
 * Compiles src/ to plain JavaScript in a temp dir, laid out like dist/, and renders there in a
 * separate Node process: the path `npm start` takes, with real worker threads.
 */
describe('renderSiteInChunks on worker threads (compiled JavaScript)', () => {
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'folio-render-worker-'));
    // The build's own compiler and settings, without the type check `npm test` ran already.
    execFileSync(process.execPath, [
      join(ROOT, 'node_modules/@typescript/native/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      dir,
      '--noCheck',
    ]);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    symlinkSync(templatesDir, join(dir, 'templates'), 'dir');
    // The search page's script is made from the package's compiled tokenizer (searchScript.ts).
    symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'), 'dir');
    // A theme whose post view differs from the default one, for the fallback case.
    cpSync(templatesDir, join(dir, 'other-theme'), { recursive: true });
    const postView = join(dir, 'other-theme', 'post.eta');
    writeFileSync(postView, `${readFileSync(postView, 'utf8')}\n<!-- another theme -->\n`);
    writeFileSync(join(dir, 'input.json'), JSON.stringify({ blog: buildBlog(), posts, redirects }));
    writeFileSync(
      join(dir, 'run.mjs'),
      `
      import { readFileSync } from 'node:fs';
      import { Worker } from 'node:worker_threads';
      import { loadTheme } from './src/publish/render/renderTheme.js';
      import { planSite } from './src/publish/pages/fullRender.js';
      import { renderSiteInChunks, renderWorkerScript } from './src/publish/parallel/renderSiteInChunks.js';
      const [themeDir, mode] = process.argv.slice(2);
      const input = { ...JSON.parse(readFileSync('input.json', 'utf8')), theme: loadTheme('templates') };
      const byId = new Map(input.posts.map((post) => [post.id, post]));
      // As stages/fullSite.ts reads them: bodies as UTF-8 bytes, each in a buffer of its own
      // (transferred to the worker) or, every third post, a view into a shared one (copied).
      const shared = (text) => { const bytes = Buffer.from('..' + text); return bytes.subarray(2); };
      const own = (text) => new TextEncoder().encode(text);
      const asBytes = (post, i) => { const encode = i % 3 === 0 ? shared : own; return { ...post, contentMd: encode(post.contentMd), contentHtml: encode(post.contentHtml) }; };
      // Every body is bytes (each object is encoded as it is rendered): the ones the workers sent
      // are told apart by their buffers, which arrive with the workers' replies.
      const sent = new Set();
      const emit = Worker.prototype.emit;
      Worker.prototype.emit = function (name, reply, ...rest) {
        if (name === 'message' && Array.isArray(reply?.pages)) for (const page of reply.pages) sent.add(page.body.buffer);
        return emit.call(this, name, reply, ...rest);
      };
      const bodies = (listed) => listed.map((post, i) => (mode === 'bytes' ? asBytes(byId.get(post.id), i) : byId.get(post.id)));
      const objects = [];
      for await (const chunk of renderSiteInChunks(planSite(input), bodies, { themeDir, workers: 2, minPosts: 0, chunkPosts: 50 })) objects.push(...chunk);
      const plain = objects.map((o) => ({ key: o.key, body: Buffer.from(o.body).toString('base64'), contentType: o.contentType, cacheControl: o.cacheControl, redirectTo: o.redirectTo ?? null }));
      const fromWorkers = objects.filter((o) => sent.has(o.body.buffer)).length;
      process.stdout.write(JSON.stringify({ worker: renderWorkerScript() !== null, fromWorkers, objects: plain }));
      `,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (themeDir: string, mode = 'text'): { worker: boolean; fromWorkers: number; objects: PlainObject[] } =>
    JSON.parse(execFileSync(process.execPath, [join(dir, 'run.mjs'), themeDir, mode], { cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20 })) as {
      worker: boolean;
      fromWorkers: number;
      objects: PlainObject[];
    };

  it('gives exactly the objects of renderSite, in the same order, byte for byte', () => {
    const { worker, fromWorkers, objects } = run(join(dir, 'templates'));
    expect(worker).toBe(true);
    // Each post's page and Markdown twin come back from the workers as bytes.
    expect(fromWorkers).toBe(posts.length * 2);
    const expected = plain(renderSite(input()));
    expect(objects.length).toBe(expected.length);
    expect(objects).toEqual(expected);
  });

  it('gives the same bytes from bodies read as UTF-8 bytes, handed to the workers or copied to them', () => {
    const { fromWorkers, objects } = run(join(dir, 'templates'), 'bytes');
    expect(fromWorkers).toBe(posts.length * 2);
    expect(objects).toEqual(plain(renderSite(input())));
  });

  it('renders on this thread instead when the workers would load another theme', () => {
    const { fromWorkers, objects } = run(join(dir, 'other-theme'));
    expect(fromWorkers).toBe(0);
    expect(objects).toEqual(plain(renderSite(input())));
  });
});

/** The chunks of renderSiteInChunks over `input`, with bodies from memory; `asked` records each call for bodies. */
async function chunksOf(siteInput: SiteInput, options: Partial<ParallelRenderOptions> = {}, leaveOut = new Set<string>()) {
  const byId = new Map(siteInput.posts.map((post) => [post.id, post]));
  const asked: number[] = [];
  const bodies = (listed: readonly SitePostSummary[]): SitePost[] => {
    asked.push(listed.length);
    // In another order than listed: the reader of the database gives no order.
    return listed
      .filter((post) => !leaveOut.has(post.id))
      .map((post) => byId.get(post.id)!)
      .reverse();
  };
  const chunks: SiteObject[][] = [];
  for await (const chunk of renderSiteInChunks(planSite(siteInput), bodies, { themeDir: templatesDir, ...options })) chunks.push(chunk);
  return { chunks, asked, objects: chunks.flat() };
}

describe('renderSiteInChunks from TypeScript sources (in-process)', () => {
  it('gives the objects of renderSite in its order, in bounded chunks, reading bodies a chunk at a time', async () => {
    const { chunks, asked, objects } = await chunksOf(input(), { workers: 0, chunkPosts: 40 });
    expect(plain(objects)).toEqual(plain(renderSite(input())));
    expect(objects.length).toBe(siteObjectCount(planSite(input())));
    expect(chunks.length).toBeGreaterThan(posts.length / 40);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(500);
    // Bodies of 40 posts per chunk, each read once.
    expect(Math.max(...asked)).toBeLessThanOrEqual(40);
    expect(asked.reduce((a, b) => a + b, 0)).toBe(posts.length);
  });

  it('ends a chunk before its bodies pass the byte budget, with one post at least', async () => {
    const siteInput = input();
    const byId = new Map(siteInput.posts.map((post) => [post.id, post]));
    const plan = planSite(siteInput);
    const budget = 3_000;
    // One post reported far over the budget: it must be a chunk of its own.
    const huge = plan.posts[100]!.id;
    const bytesOf = (post: SitePostSummary): number => (post.id === huge ? budget * 10 : Buffer.byteLength(byId.get(post.id)!.contentHtml));
    const reads: SitePostSummary[][] = [];
    const objects: SiteObject[] = [];
    const options: ParallelRenderOptions = {
      themeDir: templatesDir,
      workers: 0,
      chunkPosts: 40,
      chunkBytes: budget,
      bodyBytes: (listed) => listed.map(bytesOf),
    };
    const bodies = (listed: readonly SitePostSummary[]): SitePost[] => {
      reads.push([...listed]);
      return listed.map((post) => byId.get(post.id)!);
    };
    for await (const chunk of renderSiteInChunks(plan, bodies, options)) objects.push(...chunk);

    expect(plain(objects)).toEqual(plain(renderSite(siteInput)));
    expect(reads.flat().map((post) => post.id)).toEqual(plan.posts.map((post) => post.id));
    for (const read of reads) {
      const bytes = read.reduce((sum, post) => sum + bytesOf(post), 0);
      if (read.length > 1) expect(bytes).toBeLessThanOrEqual(budget);
      expect(read.length).toBeLessThanOrEqual(40);
    }
    expect(reads.find((read) => read.some((post) => post.id === huge))).toHaveLength(1);
    // The budget, not the count, ended most chunks: more of them than 40 posts apiece would make.
    expect(reads.length).toBeGreaterThan(Math.ceil(plan.posts.length / 40) + 1);
  });

  it('leaves out a post whose body is gone (unpublished meanwhile) and renders the rest as before', async () => {
    const gone = posts[17]!;
    const { objects } = await chunksOf(input(), { workers: 0, chunkPosts: 40 }, new Set([gone.id]));
    const goneKeys = [`notes/${gone.slug}/index.html`, `notes/${gone.slug}.md`];
    const expected = plain(renderSite(input())).filter((o) => !goneKeys.includes(o.key));
    expect(objects.some((o) => goneKeys.includes(o.key))).toBe(false);
    expect(plain(objects)).toEqual(expected);
  });

  it('gives the same objects from bodies given as UTF-8 bytes, decoded on this thread', async () => {
    const byId = new Map(posts.map((post) => [post.id, post]));
    const encoder = new TextEncoder();
    const bodies = (listed: readonly SitePostSummary[]) =>
      listed.map((post) => {
        const full = byId.get(post.id)!;
        return { ...full, contentMd: encoder.encode(full.contentMd), contentHtml: encoder.encode(full.contentHtml) };
      });
    const objects: SiteObject[] = [];
    for await (const chunk of renderSiteInChunks(planSite(input()), bodies, { themeDir: templatesDir, workers: 0, chunkPosts: 40 })) objects.push(...chunk);
    expect(plain(objects)).toEqual(plain(renderSite(input())));
  });

  it('decodes bodies given as bytes as reading the column as text would, a leading byte order mark kept', () => {
    const bytes = { ...withBom, contentMd: new TextEncoder().encode(withBom.contentMd), contentHtml: Buffer.from(withBom.contentHtml) };
    expect(decodedPost(bytes)).toEqual(withBom);
    expect(decodedPost(withBom)).toEqual(withBom);
  });

  it('renders a blog without posts', async () => {
    const empty: SiteInput = { ...input(), posts: [], redirects: [] };
    const { objects } = await chunksOf(empty);
    expect(plain(objects)).toEqual(plain(renderSite(empty)));
  });

  it('fails, instead of waiting forever, when a worker cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-render-broken-'));
    try {
      const script = join(dir, 'broken.mjs');
      writeFileSync(script, "throw new Error('this worker cannot start');\n");
      await expect(chunksOf(input(), { minPosts: 0, workers: 2, chunkPosts: 20, workerScript: new URL(`file://${script}`) })).rejects.toThrow(
        /cannot start|exited early/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
