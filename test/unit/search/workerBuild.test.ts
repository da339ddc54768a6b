import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSegments } from '../../../src/search/parallelBuild.js';
import { buildSegmentData } from '../../../src/search/segmentData.js';
import { searchDoc } from './docFactory.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Compiles src/search to plain JavaScript in a temp dir, laid out like dist/, and runs a full
 * build there in a separate Node process: the path `npm start` takes, with real worker threads.
 */
describe('rebuild in-process (TypeScript sources)', () => {
  it('builds each group exactly as one build of its documents, whatever the pieces and runs', async () => {
    const docs = Array.from({ length: 230 }, (_, i) => searchDoc({ id: `q${i}`, title: `title ${i % 9}`, body: `word${i % 13} 검색${i % 5} shared`, publishedAt: '2024-01-01T00:00:00.000Z' }));
    const groups = [docs.slice(0, 200), docs.slice(200), []];
    const built = await buildSegments(groups, { workers: 0, pieceDocs: 4 });
    expect(built).toHaveLength(3);
    groups.forEach((group, i) => expect(built[i], `group ${i}`).toEqual(buildSegmentData(group)));
  });
});

describe('rebuild on worker threads (compiled JavaScript)', () => {
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'folio-search-worker-'));
    const out = join(dir, 'src', 'search');
    mkdirSync(out, { recursive: true });
    // src/search and the one module outside it that it imports (timeSlice.ts).
    const sources = [...readdirSync(join(ROOT, 'src', 'search')).filter((f) => f.endsWith('.ts')).map((f) => join('search', f)), 'timeSlice.ts'];
    for (const file of sources) {
      const source = readFileSync(join(ROOT, 'src', file), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      });
      writeFileSync(join(dir, 'src', file.replace(/\.ts$/, '.js')), outputText);
    }
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the compiled worker and builds exactly what an in-process build gives', () => {
    // Three runs of 16 pieces of 8 (the workers join each run; this thread joins the runs).
    const docs = Array.from({ length: 300 }, (_, i) => searchDoc({ id: `p${i}`, title: `제목 ${i % 4}`, body: `서버를 word${i % 7} koa로`, publishedAt: '2024-01-01T00:00:00.000Z' }));
    const script = `
      import { buildSegments, workerScript } from './src/search/parallelBuild.js';
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
