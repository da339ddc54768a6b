/**
 * What every SqlClient does, whichever database is behind it (src/db/sql/sqlClient.ts): the
 * SQLite tests (test/unit/db/sqliteClient.test.ts) and the PostgreSQL ones
 * (test/postgres/postgresClient.test.ts) run these same cases on a real database each.
 */
import { expect, it } from 'vitest';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';

/** A client on a new, empty database; closed by the caller's own hooks. */
export type MakeClient = () => Promise<SqlClient>;

/** A promise and the function that settles it: holds a transaction open for as long as a test needs. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

async function withNotes(make: MakeClient): Promise<SqlClient> {
  const client = await make();
  await client.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, stars INTEGER NOT NULL DEFAULT 0)');
  return client;
}

const bodies = async (client: SqlClient) => (await client.all<{ body: string }>('SELECT body FROM notes ORDER BY id')).map((row) => row.body);

export function sqlClientContract(make: MakeClient): void {
  it('reads, writes and counts changes with positional parameters', async () => {
    const client = await withNotes(make);
    expect(await client.run('INSERT INTO notes (id, body) VALUES (?, ?), (?, ?)', [1, 'a', 2, 'b'])).toEqual({ changes: 2 });
    expect(await client.get<{ body: string }>('SELECT body FROM notes WHERE body = ?', ['b'])).toEqual({ body: 'b' });
    expect(await client.get('SELECT body FROM notes WHERE body = ?', ['z'])).toBeUndefined();
    expect(await client.all<{ body: string }>('SELECT body FROM notes ORDER BY body')).toEqual([{ body: 'a' }, { body: 'b' }]);
    // Counts are numbers on both databases (PostgreSQL's COUNT is a bigint).
    expect(await client.get('SELECT COUNT(*) AS n FROM notes')).toEqual({ n: 2 });
    expect(await client.run('DELETE FROM notes WHERE id > ?', [5])).toEqual({ changes: 0 });
    expect(await client.run('DELETE FROM notes')).toEqual({ changes: 2 });
  });

  it('takes a ? inside a string literal or a comment as text, not as a parameter', async () => {
    const client = await withNotes(make);
    await client.run("INSERT INTO notes (id, body) VALUES (?, 'why? it''s ?') -- a comment? yes", [1]);
    expect(await client.get("SELECT id FROM notes WHERE body = 'why? it''s ?' /* ? */ AND id = ?", [1])).toEqual({ id: 1 });
  });

  it('upserts with ON CONFLICT and returns rows from a write', async () => {
    const client = await withNotes(make);
    const upsert = 'INSERT INTO notes (id, body, stars) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET stars = notes.stars + excluded.stars RETURNING stars';
    expect(await client.get(upsert, [1, 'a', 2])).toEqual({ stars: 2 });
    expect(await client.get(upsert, [1, 'a', 3])).toEqual({ stars: 5 });
    expect(await client.run('INSERT INTO notes (id, body) VALUES (?, ?) ON CONFLICT DO NOTHING', [1, 'a'])).toEqual({ changes: 0 });
    expect(await client.all('UPDATE notes SET stars = 0 RETURNING id')).toEqual([{ id: 1 }]);
  });

  it('commits a transaction when its function resolves, and rolls it back when it rejects', async () => {
    const client = await withNotes(make);
    const id = await client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'kept']);
      return (await tx.get<{ id: number }>('SELECT id FROM notes WHERE body = ?', ['kept']))!.id;
    });
    expect(id).toBe(1);
    const failure = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [2, 'lost']);
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [3, 'kept']); // UNIQUE violation
    });
    await expect(failure).rejects.toThrow();
    expect(await bodies(client)).toEqual(['kept']);
    // And an error of the function itself.
    await expect(
      client.transaction(async (tx) => {
        await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [4, 'also lost']);
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await bodies(client)).toEqual(['kept']);
  });

  it("keeps a transaction's writes from reads outside it until it commits", async () => {
    const client = await withNotes(make);
    const held = gate();
    const inserted = gate();
    const done = client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'pending']);
      inserted.open();
      await held.opened;
    });
    await inserted.opened;
    expect(await client.all('SELECT body FROM notes')).toEqual([]);
    held.open();
    await done;
    expect(await client.all('SELECT body FROM notes')).toEqual([{ body: 'pending' }]);
  });

  it('lets concurrent transactions that read then write the same row end as if one ran after the other', async () => {
    const client = await withNotes(make);
    await client.run('INSERT INTO notes (id, body, stars) VALUES (?, ?, ?)', [1, 'counted', 0]);
    const increment = () =>
      client.transaction(async (tx) => {
        const row = await tx.get<{ stars: number }>('SELECT stars FROM notes WHERE id = ?', [1]);
        await tx.run('UPDATE notes SET stars = ? WHERE id = ?', [row!.stars + 1, 1]);
      });
    await Promise.all(Array.from({ length: 8 }, increment));
    expect(await client.get('SELECT stars FROM notes WHERE id = ?', [1])).toEqual({ stars: 8 });
  });

  it('undoes only a failed attempt inside a transaction, which goes on and commits the rest', async () => {
    const client = await withNotes(make);
    const outcome = await client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'before']);
      const failed = await tx
        .attempt(async () => {
          await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [2, 'undone']);
          await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [3, 'before']); // UNIQUE violation
        })
        .then(
          () => false,
          () => true,
        );
      // Without the savepoint PostgreSQL would refuse this: the transaction is aborted.
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [4, 'after']);
      expect(await tx.attempt(async () => (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM notes'))!.n)).toBe(2);
      return failed;
    });
    expect(outcome).toBe(true);
    expect(await bodies(client)).toEqual(['before', 'after']);
  });

  it('calls afterCommit functions once the transaction committed, never after a rollback', async () => {
    const client = await withNotes(make);
    const seen: string[] = [];
    await client.transaction(async (tx) => {
      await tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'a']);
      tx.afterCommit(() => seen.push(`committed, visible: ${String(seen.length)}`));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['committed, visible: 0']);
    await client
      .transaction(async (tx) => {
        tx.afterCommit(() => seen.push('rolled back'));
        throw new Error('no');
      })
      .catch(() => undefined);
    expect(seen).toEqual(['committed, visible: 0']);
  });

  it('refuses a transaction handle kept past its function', async () => {
    const client = await withNotes(make);
    const kept = await client.transaction(async (tx) => tx);
    await expect(kept.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'late'])).rejects.toThrow(/has ended/);
  });
}
