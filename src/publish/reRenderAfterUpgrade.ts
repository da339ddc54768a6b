/**
 * Re-renders every blog after an upgrade that changed what decides a page's bytes besides the
 * database: the theme (templates and assets), the renderer's own code or the search code compiled
 * into the search page's script. The server compares the
 * fingerprint it runs with against the one recorded in the settings table, once at start; when
 * they differ, the new fingerprint is recorded with one 'site' job per blog in the same
 * transaction, so a crash cannot record it without the jobs. The scheduler's first tick runs
 * them, and pages whose bytes did not change are not uploaded again. The same is done, search
 * indexes included, when what the index takes of a post changed (search/searchTypes.ts,
 * SEARCH_TEXT_VERSION). A blog that `folio site rebuild` (or `folio search reindex`) already
 * brought in line with what this server runs is left out (its render stamp, recorded by the CLI).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../lib/paths.js';
import { searchScriptModules } from './render/searchScript.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { RENDERER_CHANGED, SEARCH_TEXT_CHANGED, type JobsRepo } from '../db/jobsRepo.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { RenderStamp, RenderStampsRepo } from '../db/renderStampsRepo.js';
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

/** sha256 over the names and bytes of the theme folder, this renderer's modules and the search page script's. */
export function renderFingerprint(templatesDir: string, extra: readonly string[] = [], searchModules = searchScriptModules()): string {
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
  // The search page's script is compiled from the search code (render/searchScript.ts): a change
  // of its index format or tokenizer gives the page another script and the blog another index.
  for (const file of searchModules) {
    if (existsSync(file)) hash.update(relative(packageRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  // Settings that shape every page without being in the database (a cache policy, say).
  for (const part of extra) hash.update(part).update('\0');
  return hash.digest('base64url');
}

const KEY = 'render_fingerprint';
const SEARCH_KEY = 'search_text_version';

export interface ReRenderDeps {
  sql: SqlClient;
  settings: SettingsRepo;
  /** What the CLI rendered since the last start; read and cleared here. */
  stamps: RenderStampsRepo;
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
export async function reRenderAfterUpgrade(deps: ReRenderDeps, fingerprint: string, searchTextVersion: string): Promise<number> {
  const renderChanged = (await deps.settings.get(KEY)) !== fingerprint;
  const searchChanged = (await deps.settings.get(SEARCH_KEY)) !== searchTextVersion;
  if (!renderChanged && !searchChanged) {
    // Stamps are only worth keeping until the next start: a later one would trust them blindly.
    await deps.stamps.clear();
    return 0;
  }
  const now = isoNow(deps.clock);
  const queued = await deps.sql.transaction(async (tx) => {
    const settings = deps.settings.in(tx);
    const stampsRepo = deps.stamps.in(tx);
    const jobs = deps.jobs.in(tx);
    await settings.set(KEY, fingerprint, now);
    await settings.set(SEARCH_KEY, searchTextVersion, now);
    const stamps = await stampsRepo.all();
    await stampsRepo.clear();
    // Nothing recorded: pages of an install older than this check, rendered by unknown code.
    let count = 0;
    for (const blog of await deps.blogs.in(tx).listAll()) {
      const stamp = await trustedStamp(stampsRepo, blog.id, stamps[blog.id]);
      const render = renderChanged && stamp?.fingerprint !== fingerprint;
      const search = searchChanged && stamp?.searchTextVersion !== searchTextVersion;
      if (!render && !search) continue;
      await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: search ? SEARCH_TEXT_CHANGED : RENDERER_CHANGED }, now });
      count += 1;
    }
    return count;
  });
  if (queued > 0) {
    const what = searchChanged
      ? 'what the search index takes of a post changed: re-rendering and reindexing'
      : 'the theme or renderer changed since the last start: re-rendering';
    deps.logger.info({ blogs: queued }, `${what} ${queued} blogs in the background`);
  }
  return queued;
}

/**
 * A stamp counts only when no page-changing job of the blog came after it: such a job was run by
 * a server of the previous version (the CLI runs none after its stamp), whose pages it wrote.
 */
async function trustedStamp(stamps: RenderStampsRepo, blogId: string, stamp: RenderStamp | undefined): Promise<RenderStamp | null> {
  if (!stamp) return null;
  return (await stamps.hasJobAfter(blogId, stamp.afterJob)) ? null : stamp;
}

/** Records that this process (the CLI) rendered every page and/or rebuilt the indexes of one blog. */
export async function recordRenderedOutsideServer(
  deps: { stamps: RenderStampsRepo; jobs: Pick<JobsRepo, 'latestId'>; clock: Clock },
  blogId: string,
  what: { fingerprint?: string; searchTextVersion?: string },
): Promise<void> {
  await deps.stamps.record(blogId, { ...what, afterJob: await deps.jobs.latestId() }, isoNow(deps.clock));
}
