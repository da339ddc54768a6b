import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase, type Db } from '../../../src/db/database.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { StatementCache } from '../../../src/db/sql/statementCache.js';
import { gate, sqlClientContract } from '../../support/sqlClientContract.js';
import { testTempDir } from '../../support/tempDir.js';

/** A real database file with one table, the server's short busy timeout, and a client on it. */
function setUp(writeWaitMs = 2_000, table = true) {
  const file = join(testTempDir('folio-sql-'), 'folio.db');
  const db = openDatabase(file, { busyTimeoutMs: 10 });
  if (table) db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE)');
  const client = new SqliteClient(db, { writeWaitMs });
  onTestFinished(async () => {
    await client.close();
    db.close();
  });
  return { file, db, client };
}

const bodies = (db: Db) =>
  db
    .prepare<[], { body: string }>('SELECT body FROM notes ORDER BY id')
    .all()
    .map((row) => row.body);

describe('SqliteClient', () => {
  sqlClientContract(async () => setUp(2_000, false).client);

  it("bounds SQLite's page cache to 2 MiB on both connections (not better-sqlite3's 16 MB)", async () => {
    const { db, client } = setUp();
    expect(db.pragma('cache_size', { simple: true })).toBe(-2048);
    const writer = await client.transaction((tx) => tx.get<{ cache_size: number }>('PRAGMA cache_size'));
    expect(writer?.cache_size).toBe(-2048);
  });

  it('runs writes one at a time, in the order they were asked for', async () => {
    const { db, client } = setUp();
    const held = gate();
    const first = client.transaction(async (tx) => {
      await held.opened;
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['first']);
    });
    let secondDone = false;
    const second = client.run('INSERT INTO notes (body) VALUES (?)', ['second']).then(() => {
      secondDone = true;
    });
    const third = client.transaction((tx) => tx.run('INSERT INTO notes (body) VALUES (?)', ['third']));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(secondDone).toBe(false);
    expect(bodies(db)).toEqual([]);
    held.open();
    await Promise.all([first, second, third]);
    expect(bodies(db)).toEqual(['first', 'second', 'third']);
  });

  it("never lets a statement on the process's own connection join an open transaction", async () => {
    const { db, client } = setUp();
    const held = gate();
    const inserted = gate();
    const failure = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['rolled back']);
      inserted.open();
      await held.opened;
      throw new Error('changed its mind');
    });
    await inserted.opened;
    // Code not yet on the client writes through the connection it was given: it meets the lock.
    expect(() => db.prepare('INSERT INTO notes (body) VALUES (?)').run('outside')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    held.open();
    await expect(failure).rejects.toThrow('changed its mind');
    db.prepare('INSERT INTO notes (body) VALUES (?)').run('after');
    expect(bodies(db)).toEqual(['after']);
  });

  it("waits on timers for another process's write lock, and gives up with SQLITE_BUSY after writeWaitMs", async () => {
    const { file, client } = setUp(300);
    const other = openDatabase(file);
    onTestFinished(() => {
      other.close();
    });
    other.exec('BEGIN IMMEDIATE');
    const waited = client.run('INSERT INTO notes (body) VALUES (?)', ['waited']);
    // The lock is let go from a timer of this same thread: the write succeeds only if the event
    // loop went on while it waited.
    setTimeout(() => other.exec('COMMIT'), 100);
    expect(await waited).toEqual({ changes: 1 });

    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    await expect(client.transaction((tx) => tx.run('INSERT INTO notes (body) VALUES (?)', ['never']))).rejects.toMatchObject({
      code: 'SQLITE_BUSY',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    other.exec('ROLLBACK');
    // The failed write released its turn: the next one goes through.
    expect(await client.run('INSERT INTO notes (body) VALUES (?)', ['next'])).toEqual({ changes: 1 });
  });
});

describe('StatementCache', () => {
  it('prepares a text once, and lets the oldest go past its limit', () => {
    const { db } = setUp();
    const cache = new StatementCache(db, 2);
    const a = cache.prepare('SELECT 1');
    expect(cache.prepare('SELECT 1')).toBe(a);
    cache.prepare('SELECT 2');
    cache.prepare('SELECT 3');
    expect(cache.prepare('SELECT 1')).not.toBe(a);
  });
});

describe('SqliteClient with statements that write and return rows', () => {
  it("runs them in the writers' turn, on the write connection", async () => {
    const { db, client } = setUp();
    const held = gate();
    const first = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['first']);
      await held.opened;
    });
    // Read through get(), but it writes: it waits for the transaction instead of failing or joining it.
    const returned = client.get<{ id: number }>('INSERT INTO notes (body) VALUES (?) RETURNING id', ['second']);
    held.open();
    await first;
    expect(await returned).toEqual({ id: 2 });
    expect(await client.all<{ id: number }>('UPDATE notes SET body = body || ? RETURNING id', ['!'])).toHaveLength(2);
    expect(bodies(db)).toEqual(['first!', 'second!']);
  });
});

describe('two SqliteClients on one connection (a command beside the server, a test beside the app)', () => {
  it('take turns in the order they were asked for, so their write connections never meet the lock', async () => {
    const { db, client } = setUp();
    const other = new SqliteClient(db, { writeWaitMs: 50 });
    const held = gate();
    const first = client.transaction(async (tx) => {
      await held.opened;
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['first']);
    });
    // Would fail with SQLITE_BUSY (after blocking for the busy timeout) if it ran now.
    const second = other.run('INSERT INTO notes (body) VALUES (?)', ['other']);
    const third = client.run('INSERT INTO notes (body) VALUES (?)', ['first again']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    held.open();
    await Promise.all([first, second, third]);
    expect(bodies(db)).toEqual(['first', 'other', 'first again']);
    await other.close();
  });
});
