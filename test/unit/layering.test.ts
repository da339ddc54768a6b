import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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
});
