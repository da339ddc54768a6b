import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSite, type SiteInput } from '../../../src/publish/render/renderSite.js';
import { renderSiteParallel } from '../../../src/publish/renderSiteParallel.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
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

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

// A few hundred posts, given out of order, with tags, Korean text and redirects.
const posts = [...numberedPosts(320), ...fixturePosts].reverse();
const redirects = [
  { from: 'old-post-7', to: 'post-7' },
  { from: 'post-8', to: 'post-9' },
];
const input = (): SiteInput => ({ theme: defaultTheme(), blog: buildBlog(), posts, redirects });
/** Objects renderSite itself gives as Buffers (theme assets). */
const bufferBodies = (): number => renderSite(input()).filter((o) => Buffer.isBuffer(o.body)).length;

/**
 * Compiles src/ to plain JavaScript in a temp dir, laid out like dist/, and renders there in a
 * separate Node process: the path `npm start` takes, with real worker threads.
 */
describe('renderSiteParallel on worker threads (compiled JavaScript)', () => {
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'folio-render-worker-'));
    for (const file of sourcesUnder(join(ROOT, 'src'))) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      });
      const out = join(dir, relative(ROOT, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
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
      import { loadTheme } from './src/publish/render/renderTheme.js';
      import { renderSiteParallel, renderWorkerScript } from './src/publish/renderSiteParallel.js';
      const [themeDir] = process.argv.slice(2);
      const input = { ...JSON.parse(readFileSync('input.json', 'utf8')), theme: loadTheme('templates') };
      const objects = await renderSiteParallel(input, { themeDir, workers: 2, minPosts: 0, chunkPosts: 50 });
      const plain = objects.map((o) => ({ key: o.key, body: Buffer.from(o.body).toString('base64'), contentType: o.contentType, cacheControl: o.cacheControl, redirectTo: o.redirectTo ?? null }));
      // Pages from the workers arrive as Buffers; renderSite's are strings.
      const fromWorkers = objects.filter((o) => Buffer.isBuffer(o.body)).length;
      process.stdout.write(JSON.stringify({ worker: renderWorkerScript() !== null, fromWorkers, objects: plain }));
      `,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (themeDir: string): { worker: boolean; fromWorkers: number; objects: PlainObject[] } =>
    JSON.parse(execFileSync(process.execPath, [join(dir, 'run.mjs'), themeDir], { cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20 })) as {
      worker: boolean;
      fromWorkers: number;
      objects: PlainObject[];
    };

  it('gives exactly the objects of renderSite, in the same order, byte for byte', () => {
    const { worker, fromWorkers, objects } = run(join(dir, 'templates'));
    expect(worker).toBe(true);
    expect(fromWorkers).toBe(bufferBodies() + posts.length);
    const expected = plain(renderSite(input()));
    expect(objects.length).toBe(expected.length);
    expect(objects).toEqual(expected);
  });

  it('renders on this thread instead when the workers would load another theme', () => {
    const { fromWorkers, objects } = run(join(dir, 'other-theme'));
    expect(fromWorkers).toBe(bufferBodies());
    expect(objects).toEqual(plain(renderSite(input())));
  });
});

describe('renderSiteParallel from TypeScript sources', () => {
  it('renders in-process, with the same objects as renderSite', async () => {
    const objects = await renderSiteParallel(input(), { themeDir: templatesDir, minPosts: 0 });
    expect(plain(objects)).toEqual(plain(renderSite(input())));
  });
});
