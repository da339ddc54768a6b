/**
 * Keys and blogs kept in memory on PostgreSQL (db/sql/postgresChanges.ts): two nodes, each with
 * its own connections, on one database. A change committed by one node empties the other's
 * caches when its notice arrives; a node's own write does so at once; a node that lost its
 * listening connection serves nothing from memory until it listens again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiKeysRepo } from '../../src/db/apiKeysRepo.js';
import { BlogsRepo } from '../../src/db/blogsRepo.js';
import { ANNOUNCED_TABLES } from '../../src/db/sql/announcedTables.js';
import { LISTENER_NAME, PostgresChanges } from '../../src/db/sql/postgresChanges.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { T0, usePostgres } from '../support/postgresRepos.js';
import { startLaggingProxy } from '../support/laggingProxy.js';

const { seededDatabase } = usePostgres();
const quiet = { warn: () => undefined, info: () => undefined };

/** Polls `check` until it holds; fails after `ms` (a bound for a broken build, not a timing claim). */
async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await sleep(10);
  }
}

/** `listenUrl`: where the node listens for notices, when not `url` itself. */
async function node(url: string, listenUrl = url) {
  const sql = new PostgresClient(url);
  const changes = new PostgresChanges({ connectionString: listenUrl, writes: sql, logger: quiet });
  await changes.start();
  onTestFinished(async () => {
    await changes.close();
    await sql.close();
  });
  return { sql, changes, keys: new ApiKeysRepo(sql, changes), blogs: new BlogsRepo(sql, changes) };
}

const key = {
  id: 'k1',
  accountId: 'a1',
  blogId: 'b1',
  name: 'editor',
  keyHash: 'hash-1',
  keyPrefix: 'pk_live_abcd',
  scopes: ['posts:read'],
  lastUsedAt: null,
  createdAt: T0,
  expiresAt: null,
} as const;

describe('caches of keys and blogs across nodes on PostgreSQL', () => {
  it('serve from memory until another node commits a change, then read it', async () => {
    const { url } = await seededDatabase();
    const a = await node(url);
    const b = await node(url);
    expect(b.changes.isListening).toBe(true);
    const empty = b.changes.current();
    await a.keys.insert({ ...key, scopes: [...key.scopes] });
    await eventually(() => b.changes.current() !== empty);

    // Node B reads the key once; a second read is from memory (the row is changed behind its back,
    // by a statement that sends no notice, and B still answers the old value).
    expect((await b.keys.findActiveByHash('hash-1'))?.key.name).toBe('editor');
    const version = b.changes.current();
    await quietly(url, "UPDATE api_keys SET name = 'renamed quietly' WHERE id = 'k1'", 'api_keys_notify');
    expect(b.changes.current()).toBe(version);
    expect((await b.keys.findActiveByHash('hash-1'))?.key.name).toBe('editor');

    // Node A revokes it: B hears the notice and the key is gone from B's next lookup.
    await a.keys.revoke('b1', 'k1', T0);
    await eventually(() => b.changes.current() !== version);
    expect(await b.keys.findActiveByHash('hash-1')).toBeNull();

    // A blog renamed on A is read afresh on B.
    expect((await b.blogs.findById('b1'))?.name).toBe('One');
    const before = b.changes.current();
    await a.sql.run("UPDATE blogs SET name = 'Renamed' WHERE id = 'b1'");
    await eventually(() => b.changes.current() !== before);
    expect((await b.blogs.findById('b1'))?.name).toBe('Renamed');
  });

  it('see a change committed on another node at the very next lookup, even when its notice is late', async () => {
    const { url } = await seededDatabase();
    // B hears its notices 300 ms late; its queries go straight to the database.
    const proxy = await startLaggingProxy({ host: new URL(url).hostname, port: Number(new URL(url).port) }, 300);
    onTestFinished(() => proxy.close());
    const a = await node(url);
    const b = await node(url, proxy.through(url));
    expect(b.changes.isListening).toBe(true);
    await a.keys.insert({ ...key, scopes: [...key.scopes] });
    await b.changes.settle();
    expect((await b.keys.findActiveByHash('hash-1'))?.key.name).toBe('editor');
    const version = b.changes.current();

    // Revoked on A; the lookup on B right after A's answer, long before the notice reaches B.
    await a.keys.revoke('b1', 'k1', T0);
    expect(b.changes.current(), 'the notice has not arrived yet').toBe(version);
    expect(await b.keys.findActiveByHash('hash-1')).toBeNull();

    // Lookups that arrive together share one round trip, and each sees what committed before it.
    expect((await b.blogs.findById('b1'))?.name).toBe('One');
    await a.sql.run("UPDATE blogs SET name = 'Renamed' WHERE id = 'b1'");
    const names = await Promise.all(Array.from({ length: 5 }, async () => (await b.blogs.findById('b1'))?.name));
    expect(names).toEqual(['Renamed', 'Renamed', 'Renamed', 'Renamed', 'Renamed']);
  });

  it("see the node's own writes at once, before their notice comes back", async () => {
    const { url } = await seededDatabase();
    const a = await node(url);
    await a.keys.insert({ ...key, scopes: [...key.scopes] });
    expect(await a.keys.findActiveByHash('hash-1')).not.toBeNull();
    await a.keys.revoke('b1', 'k1', T0);
    // No wait: the version moved with the write itself.
    expect(await a.keys.findActiveByHash('hash-1')).toBeNull();
  });

  it("keep what they hold across the node's own writes to other tables, and drop it at one to a blog, also in a transaction", async () => {
    const { url } = await seededDatabase();
    const a = await node(url);
    await a.changes.settle();
    expect((await a.blogs.findById('b1'))?.name).toBe('One');
    const version = a.changes.current();
    // What runs every second on a busy node (rate windows) and what publishing writes.
    await a.sql.run('DELETE FROM rate_windows WHERE window_end <= ?', [Date.now()]);
    await a.sql.run("UPDATE posts SET title = 'Edited' WHERE id = 'p1'");
    await a.sql.transaction(async (tx) => {
      await tx.run("UPDATE posts SET title = 'Edited again' WHERE id = 'p1'");
    });
    await a.changes.settle();
    expect(a.changes.current()).toBe(version);
    // Still from memory: a rename nobody announces is not seen.
    await quietly(url, "UPDATE blogs SET name = 'Quiet' WHERE id = 'b1'", 'blogs_notify');
    expect((await a.blogs.findById('b1'))?.name).toBe('One');
    // A transaction of this node that changes a blog: seen at once, before its notice.
    await a.sql.transaction(async (tx) => {
      await tx.run("UPDATE posts SET title = 'Third' WHERE id = 'p1'");
      await tx.run("UPDATE blogs SET name = 'Loud' WHERE id = 'b1'");
    });
    expect(a.changes.current()).not.toBe(version);
    expect((await a.blogs.findById('b1'))?.name).toBe('Loud');
  });

  it('count as their own writes those to exactly the tables whose changes are announced', async () => {
    const { sql } = await seededDatabase();
    const triggered = await sql.all<{ relname: string }>(
      `SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE p.proname = 'notify_folio_change' ORDER BY c.relname`,
    );
    expect(triggered.map((row) => row.relname)).toEqual([...ANNOUNCED_TABLES]);
  });

  it('keep nothing while the node cannot listen', async () => {
    const { url, sql } = await seededDatabase();
    const closedPort = Object.assign(new URL(url), { port: '1' }).href;
    const changes = new PostgresChanges({ connectionString: closedPort, writes: sql, logger: quiet });
    await changes.start();
    onTestFinished(() => changes.close());
    expect(changes.isListening).toBe(false);
    const blogs = new BlogsRepo(sql, changes);
    expect((await blogs.findById('b1'))?.name).toBe('One');
    await quietly(url, "UPDATE blogs SET name = 'Unheard' WHERE id = 'b1'", 'blogs_notify');
    expect((await blogs.findById('b1'))?.name).toBe('Unheard');
  });

  it('forget what they held when the listening connection was lost, since notices sent meanwhile are lost', async () => {
    const { url } = await seededDatabase();
    const b = await node(url);
    expect((await b.blogs.findById('b1'))?.name).toBe('One');
    const version = b.changes.current();
    const admin = new PostgresClient(url);
    onTestFinished(() => admin.close());
    // The listening backend, by its application name: ended by the server, as in a restart.
    await admin.run('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()', [LISTENER_NAME]);
    await quietly(url, "UPDATE blogs SET name = 'Changed while deaf' WHERE id = 'b1'", 'blogs_notify');
    await eventually(() => b.changes.isListening && b.changes.current() !== version);
    expect((await b.blogs.findById('b1'))?.name).toBe('Changed while deaf');
  });
});

/** Runs a change whose notice nobody hears (its table's trigger off for the statement). */
async function quietly(url: string, statement: string, trigger: string): Promise<void> {
  const raw = new PostgresClient(url);
  try {
    await raw.transaction(async (tx) => {
      const table = trigger.replace(/_notify$/, '');
      await tx.run(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
      await tx.run(statement);
      await tx.run(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
    });
  } finally {
    await raw.close();
  }
}
