/**
 * A fingerprint of what decides the bytes of a rendered page besides the database: the theme
 * (templates and assets) and the renderer's own code. When an upgrade changes either, every
 * blog's pages are stale although no post changed; the server compares the fingerprint it runs
 * with against the one recorded in the database and re-renders every blog when they differ
 * (src/services/siteRenderer.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../lib/paths.js';

/**
 * The publish pipeline's modules: their TypeScript sources under vitest, else the dist/src/publish
 * tree `tsc` emits. Not "the folder of this module": the server runs from a bundle (dist/server/)
 * and the CLI from dist/src, and both must record the same fingerprint, or each start of one after
 * the other would re-render every blog.
 */
function rendererDir(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? dirname(here) : join(packageRoot, 'dist', 'src', 'publish');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** sha256 over the names and bytes of the theme folder and of this renderer's modules. */
export function renderFingerprint(templatesDir: string, extra: readonly string[] = []): string {
  const hash = createHash('sha256');
  const publishDir = rendererDir();
  for (const [root, files] of [
    [templatesDir, filesUnder(templatesDir)],
    // The compiled (or, under vitest, source) modules of the publish pipeline, maps excluded.
    [publishDir, filesUnder(publishDir).filter((file) => !file.endsWith('.map'))],
  ] as const) {
    for (const file of files) {
      hash.update(relative(root, file).split(sep).join('/')).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  // Settings that shape every page without being in the database (a cache policy, say).
  for (const part of extra) hash.update(part).update('\0');
  return hash.digest('base64url');
}
