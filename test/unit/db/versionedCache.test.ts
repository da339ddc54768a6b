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
  const lookup = (hash: string) =>
    cache.get(hash, () => {
      loads++;
      return read.get(hash) ?? null;
    });
  return { server, cli, lookup, loads: () => loads };
}

/** The next request runs in a later turn of the event loop. */
const nextRequest = () => new Promise((resolve) => setImmediate(resolve));

describe('VersionedCache', () => {
  it('answers repeated lookups from memory while nothing is written', async () => {
    const { lookup, loads } = twoConnections();
    expect(lookup('a')?.revoked).toBe(0);
    await nextRequest();
    expect(lookup('a')?.revoked).toBe(0);
    expect(lookup('a')?.revoked).toBe(0);
    expect(loads()).toBe(1);
  });

  it('sees a commit by another connection (the CLI revoking a key) on the very next request', async () => {
    const { cli, lookup } = twoConnections();
    expect(lookup('a')?.revoked).toBe(0);
    cli.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
    await nextRequest();
    expect(lookup('a')?.revoked).toBe(1);
  });

  it("sees this connection's own write at once, even in the same turn", () => {
    const { server, lookup } = twoConnections();
    expect(lookup('a')?.revoked).toBe(0);
    server.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
    expect(lookup('a')?.revoked).toBe(1);
  });

  it('keeps nothing a rolled-back transaction wrote', async () => {
    const { server, lookup } = twoConnections();
    expect(lookup('a')?.revoked).toBe(0);
    const failing = server.transaction(() => {
      server.prepare("UPDATE keys SET revoked = 1 WHERE hash = 'a'").run();
      expect(lookup('a')?.revoked).toBe(1); // read inside: not cached
      throw new Error('roll back');
    });
    expect(() => failing()).toThrow('roll back');
    await nextRequest();
    expect(lookup('a')?.revoked).toBe(0);
  });

  it('caches a miss too, until a write (a key created later is found)', async () => {
    const { cli, lookup } = twoConnections();
    expect(lookup('b')).toBeNull();
    cli.prepare("INSERT INTO keys (hash) VALUES ('b')").run();
    await nextRequest();
    expect(lookup('b')?.hash).toBe('b');
  });

  it('hands out frozen values, so no caller can change what the next one reads', () => {
    const { lookup } = twoConnections();
    const found = lookup('a')!;
    expect(Object.isFrozen(found)).toBe(true);
    expect(() => {
      (found as { revoked: number }).revoked = 5;
    }).toThrow(TypeError);
  });
});
