/**
 * Re-renders every blog after an upgrade that changed what decides a page's bytes besides the
 * database: the theme (templates and assets) or the renderer's own code. The server compares the
 * fingerprint it runs with against the one recorded in the settings table, once at start; when
 * they differ, the new fingerprint is recorded with one 'site' job per blog in the same
 * transaction, so a crash cannot record it without the jobs. The scheduler's first tick runs
 * them, and pages whose bytes did not change are not uploaded again. The same is done, search
 * indexes included, when what the index takes of a post changed (search/searchTypes.ts,
 * SEARCH_TEXT_VERSION).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../lib/paths.js';
import type { Db } from '../db/database.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { RENDERER_CHANGED, SEARCH_TEXT_CHANGED, type JobsRepo } from '../db/jobsRepo.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';

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
    // The dashboard's templates (templates/dashboard/) shape no published page.
    [templatesDir, filesUnder(templatesDir).filter((file) => !relative(templatesDir, file).startsWith(`dashboard${sep}`))],
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

const KEY = 'render_fingerprint';
const SEARCH_KEY = 'search_text_version';

export interface ReRenderDeps {
  db: Db;
  settings: SettingsRepo;
  blogs: BlogsRepo;
  jobs: JobsRepo;
  clock: Clock;
  logger: Logger;
}

/**
 * Returns how many blogs will be re-rendered (0 when nothing changed). `searchTextVersion`
 * names what the search index takes of a post (SEARCH_TEXT_VERSION); when it changed, the
 * jobs rebuild every blog's indexes as well.
 */
export function reRenderAfterUpgrade(deps: ReRenderDeps, fingerprint: string, searchTextVersion: string): number {
  const renderChanged = deps.settings.get(KEY) !== fingerprint;
  const searchChanged = deps.settings.get(SEARCH_KEY) !== searchTextVersion;
  if (!renderChanged && !searchChanged) return 0;
  const now = isoNow(deps.clock);
  const reason = searchChanged ? SEARCH_TEXT_CHANGED : RENDERER_CHANGED;
  const blogs = deps.db
    .transaction(() => {
      deps.settings.set(KEY, fingerprint, now);
      deps.settings.set(SEARCH_KEY, searchTextVersion, now);
      // Nothing recorded: pages of an install older than this check, rendered by unknown code.
      const all = deps.blogs.listAll();
      for (const blog of all) deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason }, now });
      return all.length;
    })
    .immediate();
  if (blogs > 0) {
    const what = searchChanged
      ? 'what the search index takes of a post changed: re-rendering and reindexing'
      : 'the theme or renderer changed since the last start: re-rendering';
    deps.logger.info({ blogs }, `${what} all ${blogs} blogs in the background`);
  }
  return blogs;
}
