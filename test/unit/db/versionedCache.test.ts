import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { DbVersion, VersionedCache } from '../../../src/db/versionedCache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Two connections to one real SQLite file, as the server and the `folio` CLI have. */
function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'folio-cache-'));
  dirs.push(dir);
  const server = openDatabase(join(dir, 'folio.db'));
  server.exec('CREATE TABLE keys (hash TEXT PRIMARY KEY, revoked INTEGER NOT NULL DEFAULT 0)');
  server.prepare("INSERT INTO keys (hash) VALUES ('a')").run();
  const cli = openDatabase(join(dir, 'folio.db'));
  const read = server.prepare<[string], { hash: string; revoked: number }>('SELECT * FROM keys WHERE hash = ?');
  const cache = new VersionedCache<{ hash: string; revoked: number } | null>(new DbVersion(server));
  let loads = 0;
  /** Runs while a load is under way (a slow database). */
  let duringLoad: (() => Promise<void>) | null = null;
  const lookup = (hash: string) =>
    cache.get(hash, async () => {
      loads++;
      const row = read.get(hash) ?? null;
      await duringLoad?.();
      return row;
    });
  return { server, cli, lookup, loads: () => loads, whileLoading: (fn: () => Promise<void>) => (duringLoad = fn) };
}

/** The next request runs in a later turn of the event loop. */
const nextRequest = () => new Promise((resolve) => setImmediate(resolve));

describe('VersionedCache', () => {
  it('answers repeated lookups from memory while nothing is written', async () => {
    const { lookup, loads } = twoConnections();
    expect((await lookup('a'))?.revoked).toBe(0);
    await nextRequest();
    expect((await lookup('a'))?.revoked).toBe(0);
    expect((await lookup('a'))?.revoked).toBe(0);
    expect(loads()).toBe(1);
  });

  it('sees a commit by another connection (the CLI revoking a key) on the very next request', async () => {
    const { cli, lookup } = twoConnections();
    expect((await lookup('a'))?.revoked).toBe(0);
    cli.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
    await nextRequest();
    expect((await lookup('a'))?.revoked).toBe(1);
  });

  it("sees this connection's own write at once, even in the same turn", async () => {
    const { server, lookup } = twoConnections();
    expect((await lookup('a'))?.revoked).toBe(0);
    server.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
    expect((await lookup('a'))?.revoked).toBe(1);
  });

  it('keeps nothing a rolled-back transaction wrote', async () => {
    const { server, lookup } = twoConnections();
    expect((await lookup('a'))?.revoked).toBe(0);
    server.exec('BEGIN');
    server.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
    expect((await lookup('a'))?.revoked).toBe(1); // read inside: not cached
    server.exec('ROLLBACK');
    await nextRequest();
    expect((await lookup('a'))?.revoked).toBe(0);
  });

  it('does not keep a value whose load began before a commit another lookup has seen', async () => {
    const { cli, lookup, whileLoading } = twoConnections();
    let calls = 0;
    whileLoading(async () => {
      if (calls++ > 0) return;
      // The commit lands after the row was read; a second request sees it before the first load ends.
      cli.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
      await nextRequest();
      expect((await lookup('a'))?.revoked).toBe(1);
    });
    expect((await lookup('a'))?.revoked).toBe(0);
    await nextRequest();
    expect((await lookup('a'))?.revoked).toBe(1);
  });

  it('caches a miss too, until a write (a key created later is found)', async () => {
    const { cli, lookup } = twoConnections();
    expect(await lookup('b')).toBeNull();
    cli.prepare("INSERT INTO keys (hash) VALUES ('b')").run();
    await nextRequest();
    expect((await lookup('b'))?.hash).toBe('b');
  });

  it('hands out frozen values, so no caller can change what the next one reads', async () => {
    const { lookup } = twoConnections();
    const found = (await lookup('a'))!;
    expect(Object.isFrozen(found)).toBe(true);
    expect(() => {
      (found as { revoked: number }).revoked = 5;
    }).toThrow(TypeError);
  });
});
