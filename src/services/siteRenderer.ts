/**
 * Re-renders every blog after an upgrade that changed the theme or the renderer (see
 * publish/renderFingerprint.ts). Called once at server start: the fingerprint is recorded in
 * the settings table with one 'site' job per blog in the same transaction, so a crash cannot
 * record the new fingerprint without the jobs; the scheduler's first tick runs them, and pages
 * whose bytes did not change are not uploaded again.
 */
import type { Db } from '../db/database.js';
import type { BlogsRepo } from '../db/blogsRepo.js';
import type { JobsRepo } from '../db/jobsRepo.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../logger.js';
import { isoNow, type Clock } from '../clock.js';

const KEY = 'render_fingerprint';

export interface SiteRendererDeps {
  db: Db;
  settings: SettingsRepo;
  blogs: BlogsRepo;
  jobs: JobsRepo;
  clock: Clock;
  logger: Logger;
}

/** Returns how many blogs will be re-rendered (0 when the fingerprint is unchanged). */
export function reRenderAfterUpgrade(deps: SiteRendererDeps, fingerprint: string): number {
  const recorded = deps.settings.get(KEY);
  if (recorded === fingerprint) return 0;
  const now = isoNow(deps.clock);
  const blogs = deps.db
    .transaction(() => {
      deps.settings.set(KEY, fingerprint, now);
      // Nothing recorded: pages of an install older than this check, rendered by unknown code.
      const all = deps.blogs.listAll();
      for (const blog of all) deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site', payload: { reason: 'renderer_changed' }, now });
      return all.length;
    })
    .immediate();
  if (blogs > 0) deps.logger.info({ blogs }, `the theme or renderer changed since the last start: re-rendering all ${blogs} blogs in the background`);
  return blogs;
}
