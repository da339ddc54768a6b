/**
 * node-postgres, loaded by the first PostgreSQL connection rather than at start-up (like ajv and
 * markdown-it: a bundler does not follow createRequire). A server on SQLite never loads it: its
 * import alone probes for Cloudflare's runtime with `new Response()`, which loads Node's fetch,
 * about 3 MB of heap and 10 MB of RSS that a resting server would keep (docs/operations.md#memory).
 */
import { createRequire } from 'node:module';
import type pg from 'pg';

let loaded: typeof pg | undefined;

export function pgModule(): typeof pg {
  loaded ??= createRequire(import.meta.url)('pg') as typeof pg;
  return loaded;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * The `types` option of a pool or client: bigints (every integer column, COUNT(*)) and numerics
 * (SUM of bigints) come back as numbers, as SQLite's integers do. Folio's counts and ids fit in a double.
 */
export function numbersAsNumbers(): { getTypeParser: never } {
  const { types } = pgModule();
  return {
    getTypeParser: ((oid: number, format?: string) => (oid === INT8_OID || oid === NUMERIC_OID ? Number : types.getTypeParser(oid, format as 'text'))) as never,
  };
}
