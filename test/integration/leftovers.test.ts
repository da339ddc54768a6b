/**
 * What killed processes leave behind (issue #27 item 30): a killed `folio backup` left a hidden
 * copy of the whole database beside its target, a killed server its scheduled backup's copy, and
 * a killed import or rebuild `.tmp-*` files in the folder store, all for good. The next backup
 * into the folder, and the server at start, remove those whose writer is gone; nothing else.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { spawnServer, type SpawnedServer } from '../support/spawnedServer.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

const dirs: string[] = [];
const servers: SpawnedServer[] = [];
const apps: TestApp[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.cleanup();
  while (apps.length) await apps.pop()!.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const freshDir = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `folio-${name}-`));
  dirs.push(dir);
  return dir;
};

/** The pid of a process that has exited (a killed writer's). */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
};

const put = (path: string, body = 'x'): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
  return path;
};

describe('leftovers of killed writers', () => {
  it('folio backup removes the partial copies killed backups left beside its target, and nothing else', async () => {
    const t = await startTestApp();
    apps.push(t);
    const folder = freshDir('backups');
    const dead = deadPid();
    const partials = [put(join(folder, `.1764000000000-${dead}.folio-backup.partial`)), put(join(folder, `.1764000000000-${dead}.folio-backup.partial.gz`))];
    // Another process's backup in progress (this test's process is alive), and files that are not ours.
    const running = put(join(folder, `.1764000000001-${process.ppid}.folio-backup.partial`));
    const others = [put(join(folder, 'old.db.gz'), 'an older backup'), put(join(folder, '.folio-backup-notes'))];

    const run = await runCliCaptured(['backup', join(folder, 'new.db.gz')], { ...t.cliEnv, FOLIO_RATE_LIMITS: 'off' });
    expect(run.code, run.stderr).toBe(0);
    for (const path of partials) expect(existsSync(path), path).toBe(false);
    expect(run.stdout).toContain(`Removed .1764000000000-${dead}.folio-backup.partial, left by a backup that was killed.`);
    expect(existsSync(running)).toBe(true);
    for (const path of others) expect(existsSync(path), path).toBe(true);
    expect(readFileSync(join(folder, 'old.db.gz'), 'utf8')).toBe('an older backup');
    expect(existsSync(join(folder, 'new.db.gz'))).toBe(true);
  });

  it('the server at start removes the temp files of killed writers from the folder store and killed backups from the data dir', async () => {
    const dataDir = freshDir('data');
    const publicDir = join(dataDir, 'public');
    const dead = deadPid();
    const hourAgo = (path: string): string => {
      const then = new Date(Date.now() - 2 * 60 * 60 * 1000);
      utimesSync(path, then, then);
      return path;
    };
    const leftovers = [
      put(join(publicDir, 'blog', 'post', `.tmp-${dead}-0123456789ab-1`)),
      put(join(publicDir, '.meta', 'blog', 'search', `.tmp-${dead}-0123456789ab-2`)),
      put(join(publicDir, `.tmp-${dead}-0123456789ab-3`)),
      // Of a writer that is still running but has not touched it for hours, and in the name an older Folio used.
      hourAgo(put(join(publicDir, 'blog', `.tmp-${process.ppid}-abcdef012345-7`))),
      hourAgo(put(join(publicDir, 'blog', '.tmp-0123456789ab-9'))),
      put(join(dataDir, `.1764000000000-${dead}.folio-backup.partial`, 'folio.db')),
    ];
    const kept = [
      // A write in flight: a live process's fresh temp file.
      put(join(publicDir, 'blog', `.tmp-${process.ppid}-abcdef012345-8`)),
      put(join(publicDir, 'blog', 'post', 'index.html'), '<p>a page</p>'),
      put(join(publicDir, 'blog', 'media', 'tmp-not-a-temp.png'), 'png'),
      put(join(publicDir, '.meta', 'blog', 'feed.xml.json'), '{}'),
    ];

    // On the PostgreSQL pass a database of its own: the data dir still holds the backups' copies and the folder store.
    const server = await spawnServer(await freshDataEnv(dataDir));
    servers.push(server);
    const line = await server.waitForLine((l) => l.json?.msg === 'removed what killed backups and writes left behind', 30_000);
    expect(line.json).toMatchObject({ backups: [`.1764000000000-${dead}.folio-backup.partial`], temps: 5 });
    for (const path of leftovers) expect(existsSync(path), path).toBe(false);
    for (const path of kept) expect(existsSync(path), path).toBe(true);
    expect(readFileSync(join(publicDir, 'blog', 'post', 'index.html'), 'utf8')).toBe('<p>a page</p>');
  }, 90_000);

  it('a server stopped cleanly leaves no mark in the register of writers; a killed one leaves its mark, and the next start removes its temp files', async () => {
    const dataDir = freshDir('register');
    const register = join(dataDir, 'public', '.meta', '.writers');
    const marks = (): string[] => (existsSync(register) ? readdirSync(register).filter((name) => name !== 'swept') : []);
    const env = { ...(await freshDataEnv(dataDir)), FOLIO_RATE_LIMITS: 'off' };
    const publish = async (server: SpawnedServer, apiKey: string, title: string, blogId?: string): Promise<string> => {
      const call = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
        const json = await res.json();
        expect(res.status, JSON.stringify(json)).toBeLessThan(300);
        return json;
      };
      const id = blogId ?? (await call('/v1/blogs', { slug: 'marks', name: 'Marks' })).id;
      await call('/v1/posts', { title, content: 'Body.', status: 'published' }, { 'x-blog-id': id });
      return id;
    };

    const first = await spawnServer(env);
    servers.push(first);
    const apiKey = /API key: (\S+)/.exec((await first.waitForLine((line) => line.text.includes('API key: '), 5_000)).text)![1]!;
    const blogId = await publish(first, apiKey, 'Before a clean stop');
    expect(marks()).toEqual([expect.stringMatching(new RegExp(`^${first.child.pid}-[0-9a-f]+$`))]);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(marks()).toEqual([]);

    const second = await spawnServer(env);
    servers.push(second);
    await publish(second, apiKey, 'Before a kill', blogId);
    const [mark] = marks();
    expect(mark).toMatch(new RegExp(`^${second.child.pid}-[0-9a-f]+$`));
    second.child.kill('SIGKILL');
    await second.exited;
    expect(marks()).toEqual([mark]);
    // What the kill could have cut short: a temp file of its prefix beside a page.
    const inFlight = put(join(dataDir, 'public', 'marks', `.tmp-${mark}-zz`), '<p>half a pa');

    const third = await spawnServer(env);
    servers.push(third);
    const line = await third.waitForLine((l) => l.json?.msg === 'removed what killed backups and writes left behind', 30_000);
    // The kill may also have cut short a write of its own (the static search write that follows a
    // publish): every temp file of the killed writer's prefix goes, the planted one among them
    // (the log names the first five only).
    const swept = line.json as { temps: number; firstTemps: string[] };
    expect(swept.temps).toBeGreaterThanOrEqual(1);
    expect(swept.firstTemps.every((key) => key.includes(`.tmp-${mark}-`))).toBe(true);
    expect(readdirSync(join(dataDir, 'public'), { recursive: true }).filter((name) => String(name).includes(`.tmp-${mark}-`))).toEqual([]);
    expect(existsSync(inFlight)).toBe(false);
    expect(marks()).not.toContain(mark);
  }, 90_000);
});
