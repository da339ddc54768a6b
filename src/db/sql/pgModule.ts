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
