import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSegments, buildSegmentsFrom } from '../../../src/search/parallelBuild.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Compiles src/search to plain JavaScript in a temp dir, laid out like dist/, and runs a full
 * build there in a separate Node process: the path `npm start` takes, with real worker threads.
 */
describe('rebuild in-process (TypeScript sources)', () => {
  it('builds each group exactly as one build of its documents, whatever the pieces and runs', async () => {
    const docs = Array.from({ length: 230 }, (_, i) =>
      searchDoc({ id: `q${i}`, title: `title ${i % 9}`, body: `word${i % 13} 검색${i % 5} shared`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const groups = [docs.slice(0, 200), docs.slice(200), []];
    const built = await buildSegments(groups, { workers: 0, pieceDocs: 4 });
    expect(built).toHaveLength(3);
    for (const [i, group] of groups.entries()) expect(built[i], `group ${i}`).toEqual(buildSegmentData(group));
  });
});

describe('rebuild from documents read a run at a time', () => {
  it('reads each run once, in order, and builds each group from what the reads gave', async () => {
    const docs = Array.from({ length: 230 }, (_, i) =>
      searchDoc({ id: `r${i}`, title: `title ${i % 9}`, body: `word${i % 13} 검색${i % 5}`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const reads: [number, number][] = [];
    // A post that left the blog while the index was built is not read back: its group is smaller.
    const gone = new Set(['r70', 'r229']);
    const built = await buildSegmentsFrom(
      {
        groupSizes: [200, 30, 0],
        read: async (from, to) => {
          reads.push([from, to]);
          return docs.slice(from, to).filter((doc) => !gone.has(doc.id));
        },
      },
      { workers: 0, pieceDocs: 4 },
    );
    // Runs of 16 pieces of 4, never across a group boundary.
    expect(reads).toEqual([
      [0, 64],
      [64, 128],
      [128, 192],
      [192, 200],
      [200, 230],
    ]);
    const kept = docs.filter((doc) => !gone.has(doc.id));
    expect(built).toEqual([buildSegmentData(kept.slice(0, 199)), buildSegmentData(kept.slice(199)), buildSegmentData([])]);
  });
});

describe('rebuild on worker threads (compiled JavaScript)', () => {
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'folio-search-worker-'));
    for (const folder of ['search', 'workers', 'lib']) mkdirSync(join(dir, 'dist', 'src', folder), { recursive: true });
    // src/search and the modules outside it that it imports: lib/timeSlice.ts and lib/steps.ts, and compiledScript.ts
    // with lib/paths.ts, which find the worker in dist/src from the package root (package.json and
    // templates/ mark it).
    const sources = [
      ...readdirSync(join(ROOT, 'src', 'search'))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join('search', f)),
      join('lib', 'timeSlice.ts'),
      join('lib', 'steps.ts'),
      join('workers', 'compiledScript.ts'),
      join('lib', 'paths.ts'),
    ];
    for (const file of sources) {
      const source = readFileSync(join(ROOT, 'src', file), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      });
      writeFileSync(join(dir, 'dist', 'src', file.replace(/\.ts$/, '.js')), outputText);
    }
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    mkdirSync(join(dir, 'templates'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a run only when a worker is free for it', () => {
    const docs = Array.from({ length: 600 }, (_, i) =>
      searchDoc({ id: `w${i}`, title: `t ${i % 4}`, body: `word${i % 7}`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const script = `
      import { readFileSync } from 'node:fs';
      import { buildSegmentsFrom } from './dist/src/search/parallelBuild.js';
      const docs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
      let held = 0, mostHeld = 0, reads = 0;
      const [data] = await buildSegmentsFrom({
        groupSizes: [docs.length],
        read: async (from, to) => {
          reads += 1;
          held += 1;
          mostHeld = Math.max(mostHeld, held);
          await new Promise((resolve) => setTimeout(resolve, 5));
          // Handed to a worker right after this returns: it holds the run from then on.
          setImmediate(() => { held -= 1; });
          return docs.slice(from, to);
        },
      }, { workers: 2, pieceDocs: 8 });
      process.stdout.write(JSON.stringify({ reads, mostHeld, ids: data.docs.ids }));
    `;
    writeFileSync(join(dir, 'runs.mjs'), script);
    writeFileSync(join(dir, 'runs.json'), JSON.stringify(docs));
    const output = execFileSync(process.execPath, [join(dir, 'runs.mjs'), join(dir, 'runs.json')], { cwd: dir, encoding: 'utf8' });
    const { reads, mostHeld, ids } = JSON.parse(output) as { reads: number; mostHeld: number; ids: string[] };
    // 600 documents in runs of 128: five reads, never more than the two workers' worth at once.
    expect(reads).toBe(5);
    expect(mostHeld).toBeLessThanOrEqual(2);
    expect(ids).toEqual(docs.map((doc) => doc.id));
  });

  it('indexes here what a worker that ran out of memory held, and builds the same segments', () => {
    // Runs of 32 posts of 400 KB, far above the workers' 8 MB heap cap: each worker dies on its
    // first run, and this thread indexes that run and the rest instead.
    const script = `
      import { buildSegments, buildSegmentsFrom } from './dist/src/search/parallelBuild.js';
      const words = (i) => ('alpha beta gamma delta w' + i + ' ').repeat(16000);
      const docs = Array.from({ length: 48 }, (_, i) => ({ id: 'm' + i, slug: 'm' + i, title: 't' + (i % 5), body: words(i), code: '', metaDescription: '', tags: [], createdAt: '2024-01-01T00:00:00.000Z', publishedAt: '2024-01-01T00:00:00.000Z', url: 'https://x/m' + i }));
      const [capped] = await buildSegmentsFrom({ groupSizes: [docs.length], read: async (from, to) => docs.slice(from, to) }, { workers: 2, pieceDocs: 2, workerOldGenerationMb: 8 });
      const [plain] = await buildSegments([docs], { workers: 0, pieceDocs: 2 });
      const same = JSON.stringify({ ...capped, offsets: [...capped.offsets], postingDocs: [...capped.postingDocs], postingTfs: [...capped.postingTfs], lengths: [...capped.docs.lengths] })
        === JSON.stringify({ ...plain, offsets: [...plain.offsets], postingDocs: [...plain.postingDocs], postingTfs: [...plain.postingTfs], lengths: [...plain.docs.lengths] });
      process.stdout.write(JSON.stringify({ same, ids: capped.docs.ids.length }));
    `;
    writeFileSync(join(dir, 'oom.mjs'), script);
    const output = execFileSync(process.execPath, [join(dir, 'oom.mjs')], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(JSON.parse(output)).toEqual({ same: true, ids: 48 });
  }, 120_000);

  it('uses the compiled worker and builds exactly what an in-process build gives', () => {
    // Three runs of 16 pieces of 8 (the workers join each run; this thread joins the runs).
    const docs = Array.from({ length: 300 }, (_, i) =>
      searchDoc({ id: `p${i}`, title: `제목 ${i % 4}`, body: `서버를 word${i % 7} koa로`, publishedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const script = `
      import { buildSegments, workerScript } from './dist/src/search/parallelBuild.js';
      const docs = JSON.parse(process.argv[2]);
      const [data] = await buildSegments([docs], { workers: 2, pieceDocs: 8 });
      const plain = { ...data, offsets: [...data.offsets], postingDocs: [...data.postingDocs], postingTfs: [...data.postingTfs], docs: { ...data.docs, lengths: [...data.docs.lengths] } };
      process.stdout.write(JSON.stringify({ worker: workerScript() !== null, data: plain }));
    `;
    writeFileSync(join(dir, 'run.mjs'), script);
    const output = execFileSync(process.execPath, [join(dir, 'run.mjs'), JSON.stringify(docs)], { cwd: dir, encoding: 'utf8' });
    const { worker, data } = JSON.parse(output) as { worker: boolean; data: unknown };
    expect(worker).toBe(true);
    const expected = buildSegmentData(docs);
    expect(data).toEqual({
      ...expected,
      offsets: [...expected.offsets],
      postingDocs: [...expected.postingDocs],
      postingTfs: [...expected.postingTfs],
      docs: { ...expected.docs, lengths: [...expected.docs.lengths] },
    });
  });
});
