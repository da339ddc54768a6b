/** `folio site rebuild|verify` and `folio search reindex`: whole-blog publishing work, run in this process. */
import type { Config } from '../config/config.js';
import { CLI_BUSY_TIMEOUT_MS } from '../db/database.js';
import { composeCore } from '../compose/core.js';
import { createLogger } from '../lib/logger.js';
import { boundHeapGrowth } from '../runtime/heapGrowth.js';
import { CommandError, UsageError } from './cliErrors.js';
import { progressBar } from './progressBar.js';

export async function siteCommand(config: Config, group: 'site' | 'search', args: string[], options: { busyTimeoutMs?: number }): Promise<number> {
  const [sub, slug, ...extra] = args;
  if (!slug || extra.length > 0) throw new UsageError(`${group} ${sub ?? '<command>'} takes <blog-slug>`);
  const valid = group === 'site' ? ['rebuild', 'verify'] : ['reindex'];
  if (!sub || !valid.includes(sub)) throw new UsageError(`unknown command "${group} ${sub ?? ''}"`);
  // A big blog's rebuild or reindex stays near its live memory (#31: ≤ 1 GB at 100,000 posts).
  boundHeapGrowth();
  // Renders with the public URL settings the server recorded, never this shell's defaults.
  const folio = await composeCore({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    const blog = await folio.repos.blogs.findBySlug(slug);
    if (!blog) throw new CommandError(`no blog with slug "${slug}"`);
    if (group === 'search') {
      const started = performance.now();
      const count = await folio.publisher.reindex(blog);
      await folio.recordRenderedByCommand(blog.id, { pages: false });
      process.stdout.write(`Reindexed ${count} published posts of ${slug} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
      return 0;
    }
    if (sub === 'rebuild') {
      const started = performance.now();
      const result = await folio.publisher.rebuild(blog, { force: true, withSearch: true, onProgress: progressBar(`rebuilding ${slug}`) });
      await folio.recordRenderedByCommand(blog.id, { pages: true });
      process.stdout.write(
        `Rebuilt ${slug}: ${result.written} objects written, ${result.deleted} stale removed, search index rebuilt, in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
      );
      return 0;
    }
    const report = await folio.publisher.verify(blog);
    const problems = report.missing.length + report.different.length + report.extra.length;
    const counts = [`${report.missing.length} missing`, `${report.different.length} different`, `${report.extra.length} extra`].join(', ');
    process.stdout.write(`Checked ${report.checked} objects of ${slug}: ${problems === 0 ? 'the store matches the database.' : `${counts}.`}\n`);
    for (const key of report.missing) process.stdout.write(`missing    ${key}\n`);
    for (const key of report.different) process.stdout.write(`different  ${key}\n`);
    for (const key of report.extra) process.stdout.write(`extra      ${key}\n`);
    if (report.missingMedia?.length) {
      process.stdout.write(
        `${report.missingMedia.length} of the missing objects are uploaded images: a rebuild cannot make them; restore them from a backup (see folio restore) or upload them again.\n`,
      );
    }
    if (report.undrawnCards.length > 0) {
      process.stdout.write(`${report.undrawnCards.length} social cards are not drawn yet: the server's site_cards jobs draw them, newest first.\n`);
    }
    return problems === 0 ? 0 : 1;
  } finally {
    await folio.close();
  }
}

/** `folio site rebuild --all`: every blog's pages and search index from the database (after a restore). */
export async function rebuildAll(config: Config, options: { busyTimeoutMs?: number }): Promise<number> {
  boundHeapGrowth();
  const folio = await composeCore({ config, logger: createLogger('warn'), publicUrls: 'cli', busyTimeoutMs: options.busyTimeoutMs ?? CLI_BUSY_TIMEOUT_MS });
  try {
    const started = performance.now();
    const blogs = await folio.repos.blogs.listAll();
    let written = 0;
    for (const [i, blog] of blogs.entries()) {
      const result = await folio.publisher.rebuild(blog, {
        force: true,
        withSearch: true,
        onProgress: progressBar(`rebuilding ${blog.slug} (${i + 1}/${blogs.length})`),
      });
      await folio.recordRenderedByCommand(blog.id, { pages: true });
      written += result.written;
    }
    process.stdout.write(
      `Rebuilt ${blogs.length} blogs: ${written} objects written, search indexes rebuilt, in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
    );
    return 0;
  } finally {
    await folio.close();
  }
}
