/**
 * `folio site rebuild` before the server's start on a data dir (after `folio import`, after a
 * restore): the server's start must recognise the rebuild and not render and reindex every blog
 * again. The CLI runs in this process (runCliCaptured), on the same database and folder store as
 * the app that made the posts and the app started after it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderStampsRepo } from '../../src/db/renderStampsRepo.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { createLogger } from '../../src/lib/logger.js';
import { reRenderAfterUpgrade } from '../../src/publish/reRenderAfterUpgrade.js';
import { SEARCH_TEXT_VERSION } from '../../src/search/searchTypes.js';
import { buildBlog, buildPost, type BuiltBlog } from '../support/factories.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { storeFiles as filesIn } from '../support/storeFiles.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

const dataDir = mkdtempSync(join(tmpdir(), 'folio-rebuild-start-'));
/** The data dir's data: on the PostgreSQL pass with a database of its own. */
let env: Record<string, string>;
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Every file of the folder store: its modification time and its bytes' hash. */
function storeFiles(): Map<string, string> {
  return filesIn(join(dataDir, 'public'));
}

const jobCount = async (t: TestApp): Promise<number> => (await t.folio.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM publish_jobs'))!.n;

async function rebuild(slug: string): Promise<void> {
  const run = await runCliCaptured(['site', 'rebuild', slug], { ...env, FOLIO_RATE_LIMITS: 'off' });
  expect(run.code, run.stderr).toBe(0);
}

const blogs: BuiltBlog[] = [];
beforeAll(async () => {
  // The posts are made by an app that never ran the server's start check: a data dir filled by
  // `folio import`, where no render fingerprint or search text version is recorded yet.
  env = await freshDataEnv(dataDir);
  const t = await startTestApp({ dataDir, env });
  try {
    for (const name of ['one', 'two']) {
      const blog = await buildBlog(t, { name });
      for (let i = 0; i < 3; i++)
        await buildPost(blog, { title: `Post ${i} of ${name}`, content: `Words about ${name} ${i}.`, tags: ['t'], status: 'published' });
      blogs.push(blog);
    }
    await t.folio.idle();
  } finally {
    await t.close();
  }
});

describe('a CLI rebuild before the server starts', () => {
  it('is recognised: the start records its fingerprint and queues no job, and no object of the store is written again', async () => {
    for (const blog of blogs) await rebuild(blog.slug);
    const before = storeFiles();
    const t = await startTestApp({ dataDir, env });
    try {
      const jobsBefore = await jobCount(t);
      expect(await t.folio.reRenderAfterUpgrade()).toBe(0);
      expect(await jobCount(t)).toBe(jobsBefore);
      await t.folio.tick();
      await t.folio.idle();
      expect(t.handledJobs).toEqual([]);
      expect(storeFiles()).toEqual(before);
      // The fingerprint is recorded, and the stamps go: a later start has nothing to skip.
      const settings = new SettingsRepo(t.folio.sql);
      expect(await settings.get('render_fingerprint')).not.toBeNull();
      expect(await settings.get('search_text_version')).toBe(SEARCH_TEXT_VERSION);
      expect(await new RenderStampsRepo(t.folio.sql).all()).toEqual({});
      expect(await t.folio.reRenderAfterUpgrade()).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('after folio import into a fresh data dir, the imported blogs are not rendered again at the start', async () => {
    const t = await startTestApp({ dataDir, env });
    let exported: string;
    try {
      const res = await t.request('GET', '/v1/account/export', { key: blogs[0]!.actor.key });
      expect(res.status, res.text).toBe(200);
      exported = res.text;
    } finally {
      await t.close();
    }
    const fresh = mkdtempSync(join(tmpdir(), 'folio-import-start-'));
    try {
      const file = join(fresh, 'export.json');
      writeFileSync(file, exported);
      const freshDir = join(fresh, 'data');
      const freshEnv = { ...(await freshDataEnv(freshDir)), FOLIO_RATE_LIMITS: 'off' };
      const account = await runCliCaptured(['account', 'create', '--json'], freshEnv);
      expect(account.code, account.stderr).toBe(0);
      // The blog slugs are the first data dir's: the import names them again in this one.
      const run = await runCliCaptured(['import', file, '--account', JSON.parse(account.stdout).account_id], freshEnv);
      expect(run.code, run.stderr).toBe(0);
      const server = await startTestApp({ dataDir: freshDir, env: freshEnv });
      try {
        expect(await server.folio.reRenderAfterUpgrade()).toBe(0);
        await server.folio.tick();
        await server.folio.idle();
        expect(server.handledJobs).toEqual([]);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('covers only the blogs it rebuilt: a blog the CLI did not rebuild is still re-rendered after an upgrade', async () => {
    const t = await startTestApp({ dataDir, env });
    try {
      // As an older server left the data dir: another fingerprint recorded.
      await new SettingsRepo(t.folio.sql).set('render_fingerprint', 'an-older-build', '2026-01-01T00:00:00.000Z');
      await t.close();
      await rebuild(blogs[0]!.slug);
    } catch (err) {
      await t.close();
      throw err;
    }
    const again = await startTestApp({ dataDir, env });
    try {
      expect(await again.folio.reRenderAfterUpgrade()).toBe(1);
      await again.folio.tick();
      await again.folio.idle();
      expect(again.handledJobs.map((job) => [job.kind, job.blogId, job.payload.reason])).toEqual([['site', blogs[1]!.id, 'renderer_changed']]);
    } finally {
      await again.close();
    }
  });

  it('does not hide a real difference: a renderer other than the one the CLI ran, or a post an older server published after the rebuild', async () => {
    for (const blog of blogs) await rebuild(blog.slug);
    const t = await startTestApp({ dataDir, env });
    try {
      const deps = {
        sql: t.folio.sql,
        settings: new SettingsRepo(t.folio.sql),
        stamps: new RenderStampsRepo(t.folio.sql),
        blogs: t.folio.repos.blogs,
        jobs: t.folio.repos.jobs,
        clock: t.clock,
        logger: createLogger('silent'),
      };
      // A server whose renderer differs from the CLI's re-renders both blogs.
      expect(await reRenderAfterUpgrade(deps, 'a-newer-build', SEARCH_TEXT_VERSION)).toBe(2);
      await t.folio.tick();
      await t.folio.idle();
      // Rebuilt by the CLI, then a post published by the server still running the old renderer.
      for (const blog of blogs) await rebuild(blog.slug);
      await buildPost(
        { ...blogs[0]!, actor: { ...blogs[0]!.actor, request: (m, p, o = {}) => t.request(m, p, { key: blogs[0]!.actor.key, ...o }) } },
        {
          title: 'Late',
          status: 'published',
        },
      );
      await t.folio.idle();
      // The server restarts with the CLI's renderer: the other blog's stamp still holds.
      await deps.settings.set('render_fingerprint', 'an-older-build', '2026-01-01T00:00:00.000Z');
      expect(await t.folio.reRenderAfterUpgrade()).toBe(1);
      expect((await t.folio.repos.jobs.listDue('9999', 10)).map((job) => job.blogId)).toEqual([blogs[0]!.id]);
    } finally {
      await t.close();
    }
  });
});
