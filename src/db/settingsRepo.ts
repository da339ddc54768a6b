import type { Db } from './database.js';

/** The `settings` key/value table (migration 008): values the server records for every process. */
export class SettingsRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly keysStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.keysStmt = db.prepare<[number, string, string], { key: string }>('SELECT key FROM settings WHERE substr(key, 1, ?) = ? AND value = ?');
    this.setStmt = db.prepare(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
  }

  /** The keys starting with `prefix` whose value is `value`. */
  keysWithValue(prefix: string, value: string): string[] {
    return this.keysStmt.all(prefix.length, prefix, value).map((row) => row.key);
  }

  get(key: string): string | null {
    return this.getStmt.get(key)?.value ?? null;
  }

  set(key: string, value: string, now: string): void {
    this.setStmt.run(key, value, now);
  }
}
