import { ConfigError, type Env } from './env.js';

/** FOLIO_DATABASE_URL: empty for SQLite, else a postgres:// URL (its password is never printed). */
export function readDatabaseUrl(env: Env): string | null {
  const raw = (env.FOLIO_DATABASE_URL ?? '').trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('FOLIO_DATABASE_URL', 'not a URL: expected postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('FOLIO_DATABASE_URL', `expected a postgres:// URL, got a ${url.protocol}// one (leave it unset for SQLite)`);
  }
  if (url.pathname.replace(/^\//, '') === '')
    throw new ConfigError('FOLIO_DATABASE_URL', 'names no database: expected postgres://user:password@host:5432/database');
  return raw;
}
