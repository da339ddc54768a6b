/**
 * Re-renders every blog after an upgrade that changed the theme or the renderer (see
 * publish/renderFingerprint.ts). Called once at server start: the fingerprint is recorded in
 * the settings table with one 'site' job per blog in the same transaction, so a crash cannot
 * record the new fingerprint without the jobs; the scheduler's first tick runs them, and pages
 * whose bytes did not change are not uploaded again. The same is done, search indexes included,
 * when what the index takes of a post changed (search/searchTypes.ts, SEARCH_TEXT_VERSION).
 */
import type { Db } from '../db/database.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import { RENDERER_CHANGED, SEARCH_TEXT_CHANGED, type JobsRepo } from '../db/jobsRepo.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../lib/logger.js';
import { isoNow, type Clock } from '../lib/clock.js';

const KEY = 'render_fingerprint';
const SEARCH_KEY = 'search_text_version';

export interface SiteRendererDeps {
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
export function reRenderAfterUpgrade(deps: SiteRendererDeps, fingerprint: string, searchTextVersion: string): number {
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
    const what = searchChanged ? 'what the search index takes of a post changed: re-rendering and reindexing' : 'the theme or renderer changed since the last start: re-rendering';
    deps.logger.info({ blogs }, `${what} all ${blogs} blogs in the background`);
  }
  return blogs;
}
