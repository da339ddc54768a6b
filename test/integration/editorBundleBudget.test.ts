/**
 * The editor page's JavaScript budget (issue #30): at most 250 KB gzip-compressed in total,
 * counted as a browser loads it: shell.js, the editor entry and every chunk they import, and the
 * preview frame's script, read from the built dist/dashboard (`npm run bundle`, which `npm test`
 * runs first).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const DIST = join(process.cwd(), 'dist', 'dashboard');
const BUDGET = 250 * 1024;

/** The file and every file it imports, statically or dynamically (the editor may load them all). */
function closure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(DIST, 'assets', file), 'utf8');
    for (const match of code.matchAll(/(?:from|import)\s*\(?\s*["']\.\/([^"']+\.js)["']/g)) visit(match[1]!);
  };
  visit(entry);
  return [...seen];
}

describe('the editor page’s scripts', () => {
  it('stay within 250 KB gzip-compressed, shell.js and chunks included', () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8')) as Record<string, string>;
    expect(manifest['editor.js'], 'npm run bundle builds web/dashboard/pages/editor.ts').toBeDefined();
    // The Preview region's frame loads its own script: part of what the editor page loads.
    const entries = ['editor.js', 'shell.js', 'previewFrame.js'].map((name) => manifest[name]!.replace(/^assets\//, ''));
    const files = new Set(entries.flatMap(closure));
    // The editor entry is bundled with CodeMirror, so a missed chunk cannot hide most of it.
    expect(files.size).toBeGreaterThanOrEqual(2);
    let total = 0;
    for (const file of files) total += gzipSync(readFileSync(join(DIST, 'assets', file))).length;
    expect(total).toBeGreaterThan(10 * 1024);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });

  it('keep the preview frame’s script one small file: its CSP names that file alone', () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8')) as Record<string, string>;
    const frame = manifest['previewFrame.js']!.replace(/^assets\//, '');
    expect(closure(frame)).toEqual([frame]);
    expect(gzipSync(readFileSync(join(DIST, 'assets', frame))).length).toBeLessThanOrEqual(2 * 1024);
  });
});
