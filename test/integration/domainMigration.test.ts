import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, type Db } from '../../src/db/database.js';
import { migrationsDir } from '../../src/lib/paths.js';
import { ISO_MS } from '../support/factories.js';

/**
 * Migration 006 rebuilds `domains` on a database that already holds registrations: hostnames
 * are unique only among active rows, every row gets a challenge token, pending rows an expiry.
 */

const WEEK = 7 * 24 * 3600 * 1000;
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A database file at schema version 005, opened as openDatabase opens it (foreign keys on). */
function databaseAt005(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'folio-mig-'));
  dirs.push(dir);
  const db = new Database(join(dir, 'folio.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const name of readdirSync(migrationsDir)
    .filter((n) => /^00[1-5]_/.test(n))
    .sort()) {
    db.exec(readFileSync(join(migrationsDir, name), 'utf8'));
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(Number(name.slice(0, 3)), name, new Date().toISOString());
  }
  return db;
}

function addBlog(db: Db, id: string): void {
  db.prepare(
    `INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES (?, 'acc', ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
  ).run(id, id, id);
}

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('migration 006_domain_challenges', () => {
  it('keeps every registration, gives each a token and pending ones a week, and frees pending hostnames', () => {
    const db = databaseAt005();
    db.prepare(
      `INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc', 'starter', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    ).run();
    for (const id of ['live', 'old', 'new', 'other', 'third', 'spare']) addBlog(db, id);
    const insert = db.prepare(
      'INSERT INTO domains (blog_id, hostname, status, created_at, verified_at, last_checked_at, last_error) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run('live', 'live.example.com', 'active', '2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z', '2025-01-02T00:00:00.000Z', null);
    insert.run('old', 'old.example.com', 'pending_verification', '2025-01-01T00:00:00.000Z', null, '2025-03-01T00:00:00.000Z', 'no CNAME record');
    insert.run('new', 'new.example.com', 'pending_verification', new Date().toISOString(), null, null, null);

    const before = Date.now();
    migrate(db);
    const after = Date.now();

    const rows = db.prepare('SELECT * FROM domains ORDER BY blog_id').all() as Record<string, string | null>[];
    expect(rows.map((r) => [r.blog_id, r.hostname, r.status])).toEqual([
      ['live', 'live.example.com', 'active'],
      ['new', 'new.example.com', 'pending_verification'],
      ['old', 'old.example.com', 'pending_verification'],
    ]);
    const live = rows[0]!;
    expect(live).toMatchObject({ verified_at: '2025-01-02T00:00:00.000Z', expires_at: null, last_error: null });
    const old = rows[2]!;
    expect(old).toMatchObject({ created_at: '2025-01-01T00:00:00.000Z', last_checked_at: '2025-03-01T00:00:00.000Z', last_error: 'no CNAME record' });
    for (const row of rows) expect(row.challenge_token).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(rows.map((r) => r.challenge_token)).size).toBe(3);
    // Pending rows expire a week after the migration: their owners have never seen the new token.
    for (const row of rows.slice(1)) {
      expect(row.expires_at).toMatch(ISO_MS);
      const expires = Date.parse(row.expires_at!);
      expect(expires).toBeGreaterThanOrEqual(before - 1000 + WEEK);
      expect(expires).toBeLessThanOrEqual(after + 1000 + WEEK);
    }

    const add = db.prepare(
      `INSERT INTO domains (blog_id, hostname, status, challenge_token, created_at, expires_at) VALUES (?, ?, ?, 'x', '2025-01-01T00:00:00.000Z', ?)`,
    );
    // Pending registrations of a hostname no longer clash, with each other or with the active one.
    add.run('other', 'old.example.com', 'pending_verification', '2099-01-01T00:00:00.000Z');
    add.run('third', 'live.example.com', 'pending_verification', '2099-01-01T00:00:00.000Z');
    // A second active row for a hostname does.
    expect(code(() => db.prepare(`UPDATE domains SET status = 'active', expires_at = NULL WHERE blog_id = 'third'`).run())).toBe('SQLITE_CONSTRAINT_UNIQUE');
    // Still one domain per blog.
    expect(code(() => add.run('third', 'x.example.com', 'pending_verification', '2099-01-01T00:00:00.000Z'))).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    // Active rows have no expiry, pending ones always have one.
    expect(code(() => add.run('spare', 'y.example.com', 'active', '2099-01-01T00:00:00.000Z'))).toBe('SQLITE_CONSTRAINT_CHECK');
    expect(code(() => db.prepare(`UPDATE domains SET expires_at = NULL WHERE blog_id = 'other'`).run())).toBe('SQLITE_CONSTRAINT_CHECK');
    // The foreign key to blogs survived the rebuild: deleting a blog still removes its domain.
    db.prepare(`DELETE FROM blogs WHERE id = 'old'`).run();
    expect(db.prepare(`SELECT COUNT(*) AS n FROM domains WHERE blog_id = 'old'`).get()).toEqual({ n: 0 });
    expect(code(() => add.run('no-such-blog', 'z.example.com', 'pending_verification', '2099-01-01T00:00:00.000Z'))).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(
      db
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .all()
        .map((r) => (r as { version: number }).version),
    ).toContain(6);
    db.close();
  });

  it('applies to an empty database too', () => {
    const db = databaseAt005();
    migrate(db);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'domains' ORDER BY name`).all()).toEqual(
      expect.arrayContaining([{ name: 'domains_active_hostname' }]),
    );
    db.close();
  });
});
