/**
 * Issue #30's byte budget for the dashboard pages other than the editor: each loads at most
 * 100 KB of gzip-compressed JavaScript, counting what the browser fetches for it: the page's
 * entry, every chunk it imports (followed through the chunks' own imports) and the shell every
 * page loads. Reads dist/dashboard as `npm run bundle` writes it (`npm test` bundles first).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/dashboard/', import.meta.url));
const PAGES = ['blogs', 'posts', 'settings', 'domain', 'webhooks', 'analytics', 'keys'];
const BUDGET = 100 * 1024;

const manifest = (): Record<string, string> => JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8')) as Record<string, string>;

/** The file and every chunk it imports statically, each once (paths relative to dist/dashboard). */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(DIST, file), 'utf8');
  for (const match of text.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) closure(join('assets', match[1]!), seen);
  return seen;
}

const gzipped = (file: string): number => gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;

describe('the JavaScript each dashboard page loads (dist/dashboard, after npm run bundle)', () => {
  it.each(PAGES)('%s: at most 100 KB gzip-compressed, shell included', (page) => {
    const files = manifest();
    const entry = files[`${page}.js`];
    const shell = files['shell.js'];
    expect(entry, `${page}.js in the manifest`).toBeDefined();
    expect(shell, 'shell.js in the manifest').toBeDefined();
    const loaded = closure(shell!, closure(entry!));
    const bytes = [...loaded].reduce((sum, file) => sum + gzipped(file), 0);
    // Every page shares the API client and DOM helpers through chunks: they are counted too.
    expect(loaded.size).toBeGreaterThan(2);
    expect(bytes).toBeLessThanOrEqual(BUDGET);
  });
});
