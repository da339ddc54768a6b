/**
 * Regression: the query seam first guarded against nested transactions with AsyncLocalStorage.
 * On Node 20 running one AsyncLocalStorage turns on promise hooks for the whole process: promise-
 * heavy code ran 2.6–3.2× slower in a microbenchmark and `npm test` 20–25% slower. No module of
 * ours may use it (or async_hooks) until Node 20 is no longer supported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('no AsyncLocalStorage in src/', () => {
  it('imports node:async_hooks nowhere', () => {
    const users = sourceFiles('src').filter((file) => /from ['"](node:)?async_hooks['"]/.test(readFileSync(file, 'utf8')));
    expect(users).toEqual([]);
  });
});
