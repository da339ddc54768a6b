import type { SqlScope, SqlTransaction } from './sql/sqlClient.js';

/** The `settings` key/value table (migration 008): values the server records for every process. */
export class SettingsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): SettingsRepo {
    return new SettingsRepo(tx);
  }

  /** The keys starting with `prefix` whose value is `value`. */
  async keysWithValue(prefix: string, value: string): Promise<string[]> {
    const rows = await this.sql.all<{ key: string }>('SELECT key FROM settings WHERE substr(key, 1, ?) = ? AND value = ?', [prefix.length, prefix, value]);
    return rows.map((row) => row.key);
  }

  async get(key: string): Promise<string | null> {
    return (await this.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]))?.value ?? null;
  }

  async set(key: string, value: string, now: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [key, value, now],
    );
  }
}
