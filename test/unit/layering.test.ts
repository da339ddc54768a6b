import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('layering', () => {
  it('nothing in src/ outside src/http imports Koa, and the publish pipeline never imports the HTTP layer', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles('src')) {
      const rel = relative('src', file);
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      if (!rel.startsWith('http/') && imports.some((i) => i === 'koa' || i.startsWith('@koa/') || i.startsWith('koa-'))) offenders.push(rel);
      if ((rel.startsWith('publish/') || rel.startsWith('services/') || rel.startsWith('search/') || rel.startsWith('storage/')) && imports.some((i) => i.includes('/http/'))) {
        offenders.push(rel);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('neither src/ nor bench/ imports anything from test/ (the image and the bench build have no test/)', () => {
    const offenders: string[] = [];
    for (const dir of ['src', 'bench']) {
      for (const file of sourceFiles(dir)) {
        const targets = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)));
        if (targets.some((target) => target.startsWith(`test/`) || target === 'test')) offenders.push(file);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('has no import cycles in src/ (type-only imports included)', () => {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles('src')) {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
      graph.set(normalize(file), targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (node: string): void => {
      state.set(node, 'open');
      path.push(node);
      for (const next of graph.get(node) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles).toEqual([]);
  });
});
