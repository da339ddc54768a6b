import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { sqlClientContract } from '../support/sqlClientContract.js';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => server?.stop());

/** A client on a new database of the cluster, closed when the test ends. */
async function client(options: ConstructorParameters<typeof PostgresClient>[1] = {}): Promise<PostgresClient> {
  const made = new PostgresClient(await server.createDatabase(), options);
  onTestFinished(() => made.close());
  return made;
}

describe('PostgresClient', () => {
  sqlClientContract(() => client());

  it("gives up on a transaction that keeps conflicting once writeWaitMs has passed, with PostgreSQL's error", async () => {
    const url = await server.createDatabase();
    const sql = new PostgresClient(url, { writeWaitMs: 200 });
    const other = new PostgresClient(url);
    onTestFinished(async () => {
      await sql.close();
      await other.close();
    });
    await sql.run('CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    await sql.run('INSERT INTO counters (id, n) VALUES (?, ?)', [1, 0]);
    let runs = 0;
    const started = Date.now();
    // Every run reads the row, then another client commits a change to it, then the run writes
    // it: a serialization failure each time.
    const doomed = sql.transaction(async (tx) => {
      runs++;
      await tx.get('SELECT n FROM counters WHERE id = ?', [1]);
      await other.run('UPDATE counters SET n = n + 1 WHERE id = ?', [1]);
      await tx.run('UPDATE counters SET n = n + 100 WHERE id = ?', [1]);
    });
    // As SQLite's busy error after its wait: the database cannot serve this now (a 503).
    await expect(doomed).rejects.toMatchObject({ name: 'DatabaseUnavailableError', cause: { code: '40001' } });
    expect(runs).toBeGreaterThan(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    // Nothing of the failed runs stayed; every one of the other client's updates did.
    expect(await sql.get('SELECT n FROM counters WHERE id = ?', [1])).toEqual({ n: runs });
  });

  it('refuses to store text holding NUL (which PostgreSQL cannot hold) as a bad request, and finds nothing by it, as SQLite would', async () => {
    const sql = await client();
    await sql.run('CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
    const refused = { name: 'BadRequestError', status: 400, message: expect.stringContaining('U+0000') };
    await expect(sql.run('INSERT INTO notes (id, body) VALUES (?, ?)', ['a', 'before\u0000after'])).rejects.toMatchObject(refused);
    await sql.run('INSERT INTO notes (id, body) VALUES (?, ?)', ['c', 'kept']);
    expect(await sql.get('SELECT * FROM notes WHERE id = ?', ['\u0000'])).toBeUndefined();
    expect(await sql.transaction((tx) => tx.all('SELECT * FROM notes WHERE body <> ?', ['a\u0000b']))).toEqual([{ id: 'c', body: 'kept' }]);
    await expect(sql.transaction((tx) => tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', ['b', '\u0000']))).rejects.toMatchObject(refused);
    expect(await sql.all('SELECT * FROM notes')).toEqual([{ id: 'c', body: 'kept' }]);
  });

  it('reports a server that went away as unavailable, and reconnects once it is back', async () => {
    const url = await server.createDatabase();
    const sql = new PostgresClient(url);
    onTestFinished(() => sql.close());
    await sql.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    await sql.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'kept']);
    await server.pause();
    const unavailable = { name: 'DatabaseUnavailableError' };
    await expect(sql.get('SELECT body FROM notes')).rejects.toMatchObject(unavailable);
    await expect(sql.transaction((tx) => tx.run('INSERT INTO notes (id, body) VALUES (?, ?)', [2, 'lost']))).rejects.toMatchObject(unavailable);
    await server.start();
    // A statement's own error is not the server's absence: it stays what PostgreSQL said.
    await expect(sql.run('INSERT INTO notes (id, body) VALUES (?, ?)', [1, 'again'])).rejects.toMatchObject({ code: '23505' });
    await expect(sql.transaction(async () => Promise.reject(new Error('the function failed')))).rejects.toThrow('the function failed');
    expect(await sql.all('SELECT body FROM notes ORDER BY id')).toEqual([{ body: 'kept' }]);
  });
});
