import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase, type Db } from '../../../src/db/database.js';
import { SqliteClient } from '../../../src/db/sql/sqliteClient.js';
import { StatementCache } from '../../../src/db/sql/statementCache.js';
import { testTempDir } from '../../support/tempDir.js';

/** A real database file with one table, the server's short busy timeout, and a client on it. */
function setUp(writeWaitMs = 2_000) {
  const file = join(testTempDir('folio-sql-'), 'folio.db');
  const db = openDatabase(file, { busyTimeoutMs: 10 });
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE)');
  const client = new SqliteClient(db, { writeWaitMs });
  onTestFinished(() => {
    client.close();
    db.close();
  });
  return { file, db, client };
}

/** A promise and the function that settles it: holds a transaction open for as long as a test needs. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const bodies = (db: Db) =>
  db
    .prepare<[], { body: string }>('SELECT body FROM notes ORDER BY id')
    .all()
    .map((row) => row.body);

describe('SqliteClient', () => {
  it('reads, writes and counts changes with positional parameters', async () => {
    const { client } = setUp();
    expect(await client.run('INSERT INTO notes (body) VALUES (?), (?)', ['a', 'b'])).toEqual({ changes: 2 });
    expect(await client.get<{ body: string }>('SELECT body FROM notes WHERE body = ?', ['b'])).toEqual({ body: 'b' });
    expect(await client.get('SELECT body FROM notes WHERE body = ?', ['z'])).toBeUndefined();
    expect(await client.all<{ body: string }>('SELECT body FROM notes ORDER BY body')).toEqual([{ body: 'a' }, { body: 'b' }]);
    expect(await client.run('DELETE FROM notes')).toEqual({ changes: 2 });
  });

  it('commits a transaction when its function resolves, and rolls it back when it rejects', async () => {
    const { db, client } = setUp();
    const id = await client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['kept']);
      return (await tx.get<{ id: number }>('SELECT id FROM notes WHERE body = ?', ['kept']))!.id;
    });
    expect(id).toBe(1);
    const failure = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['lost']);
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['kept']); // UNIQUE violation
    });
    await expect(failure).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(bodies(db)).toEqual(['kept']);
    expect(db.inTransaction).toBe(false);
  });

  it("keeps a transaction's writes from reads outside it until it commits", async () => {
    const { client } = setUp();
    const held = gate();
    const inserted = gate();
    const done = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['pending']);
      inserted.open();
      await held.opened;
    });
    await inserted.opened;
    expect(await client.all('SELECT body FROM notes')).toEqual([]);
    held.open();
    await done;
    expect(await client.all('SELECT body FROM notes')).toEqual([{ body: 'pending' }]);
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

  it('refuses the client inside a transaction instead of waiting for itself', async () => {
    const { db, client } = setUp();
    const outcome = await client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (body) VALUES (?)', ['outer']);
      const nested = await client.transaction(async () => 'inner').catch((err: Error) => err.message);
      const write = await client.run('INSERT INTO notes (body) VALUES (?)', ['x']).catch((err: Error) => err.message);
      const read = await client.get('SELECT 1').catch((err: Error) => err.message);
      return { nested, write, read };
    });
    expect(outcome.nested).toMatch(/inside a transaction/);
    expect(outcome.write).toMatch(/inside a transaction/);
    expect(outcome.read).toMatch(/inside a transaction/);
    expect(bodies(db)).toEqual(['outer']);
    // After it, the client is usable again.
    expect(await client.get('SELECT COUNT(*) AS n FROM notes')).toEqual({ n: 1 });
  });

  it('refuses a transaction handle kept past its function', async () => {
    const { client } = setUp();
    const kept = await client.transaction(async (tx) => tx);
    await expect(kept.run('INSERT INTO notes (body) VALUES (?)', ['late'])).rejects.toThrow(/has ended/);
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
