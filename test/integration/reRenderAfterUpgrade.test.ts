/**
 * After an upgrade that changed the theme or the renderer, every blog is re-rendered: pages
 * carry the old templates otherwise, although no post changed. The server records the render
 * fingerprint at start; a different one queues one whole-site job per blog.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templatesDir } from '../../src/lib/paths.js';
import { renderFingerprint } from '../../src/publish/reRenderAfterUpgrade.js';
import { searchScriptModules } from '../../src/publish/render/searchScript.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { RenderStampsRepo } from '../../src/db/renderStampsRepo.js';
import { createLogger } from '../../src/lib/logger.js';
import { reRenderAfterUpgrade } from '../../src/publish/reRenderAfterUpgrade.js';
import { SEARCH_TEXT_VERSION } from '../../src/search/searchTypes.js';
import { buildBlog, buildPost } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  for (const name of ['first', 'second']) {
    const blog = await buildBlog(t, { name });
    await buildPost(blog, { title: `In ${name}`, status: 'published' });
  }
});
afterAll(async () => t.close());

const deps = () => ({
  sql: t.folio.sql,
  settings: new SettingsRepo(t.folio.sql),
  stamps: new RenderStampsRepo(t.folio.sql),
  blogs: t.folio.repos.blogs,
  jobs: t.folio.repos.jobs,
  clock: t.clock,
  logger: createLogger('silent'),
});
const pendingJobs = async (reason: string) => (await t.folio.repos.jobs.listDue('9999', 1000)).filter((job) => job.payload.reason === reason);
const pendingRenders = () => pendingJobs('renderer_changed');

describe('re-rendering after an upgrade', () => {
  it('queues every blog once, indexes included, when nothing was recorded yet (an install older than the check), then nothing', async () => {
    expect(await t.folio.reRenderAfterUpgrade()).toBe(2);
    expect((await pendingJobs('search_text_changed')).map((job) => job.kind)).toEqual(['site', 'site']);
    await t.folio.tick();
    await t.folio.idle();
    expect(await pendingJobs('search_text_changed')).toEqual([]);
    expect(await t.folio.reRenderAfterUpgrade()).toBe(0);
  });

  it('queues every blog again when the fingerprint changes, in the transaction that records it', async () => {
    expect(await reRenderAfterUpgrade(deps(), 'another-build', SEARCH_TEXT_VERSION)).toBe(2);
    expect(await new SettingsRepo(t.folio.sql).get('render_fingerprint')).toBe('another-build');
    expect(await pendingRenders()).toHaveLength(2);
    expect(await reRenderAfterUpgrade(deps(), 'another-build', SEARCH_TEXT_VERSION)).toBe(0);
  });

  it('reindexes every blog when what the index takes of a post changed: code words of an index written before become findable', async () => {
    await t.folio.tick();
    await t.folio.idle();
    const blog = await buildBlog(t, { name: 'third' });
    await buildPost(blog, { title: 'Check', content: 'Run:\n\n```sh\ncurl -fsS https://example.com/\n```', status: 'published' });
    await t.folio.tick();
    await t.folio.idle();
    const search = async () => (await blog.actor.request('GET', '/v1/search?q=curl', { blogId: blog.id })).body.pagination.total;
    expect(await search()).toBe(1);
    // The blog's indexes as a build that did not index code left them: without the word.
    await t.folio.store.deleteMany(await t.folio.store.list(`${blog.slug}/_search/`));
    expect(await search()).toBe(0);
    const settings = new SettingsRepo(t.folio.sql);
    await settings.set('search_text_version', '1', '2026-01-01T00:00:00.000Z');
    expect(await reRenderAfterUpgrade(deps(), (await settings.get('render_fingerprint'))!, SEARCH_TEXT_VERSION)).toBe(3);
    expect(await pendingJobs('search_text_changed')).toHaveLength(3);
    await t.folio.tick();
    await t.folio.idle();
    expect(await search()).toBe(1);
    expect(await reRenderAfterUpgrade(deps(), (await settings.get('render_fingerprint'))!, SEARCH_TEXT_VERSION)).toBe(0);
  });

  it('fingerprints the theme: editing a template or an asset changes it, nothing else does', () => {
    const copy = mkdtempSync(join(tmpdir(), 'folio-theme-'));
    try {
      cpSync(templatesDir, copy, { recursive: true });
      const before = renderFingerprint(copy);
      expect(renderFingerprint(copy)).toBe(before);
      writeFileSync(join(copy, 'post.eta'), '<article>changed</article>');
      const afterTemplate = renderFingerprint(copy);
      expect(afterTemplate).not.toBe(before);
      writeFileSync(join(copy, 'assets', 'site.css'), 'body{}');
      expect(renderFingerprint(copy)).not.toBe(afterTemplate);
      expect(renderFingerprint(copy, ['policy-a'])).not.toBe(renderFingerprint(copy, ['policy-b']));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('fingerprints the search code compiled into the search page script: a new index format re-renders every blog', () => {
    const copy = mkdtempSync(join(tmpdir(), 'folio-search-code-'));
    try {
      const modules = searchScriptModules().map((file) => {
        const to = join(copy, basename(file));
        cpSync(file, to);
        return to;
      });
      const before = renderFingerprint(templatesDir, [], modules);
      expect(renderFingerprint(templatesDir, [], modules)).toBe(before);
      const query = modules.find((file) => file.endsWith('staticQuery.js'))!;
      writeFileSync(query, readFileSync(query, 'utf8').replace(/STATIC_FORMAT_VERSION = \d+/, 'STATIC_FORMAT_VERSION = 99'));
      expect(renderFingerprint(templatesDir, [], modules)).not.toBe(before);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
