/**
 * Webhook deliveries claimed before they are sent (#32), on SQLite: two dispatchers, each on a
 * connection of its own to one database file, as two processes on one data dir would be.
 */
import { join } from 'node:path';
import { describe, onTestFinished } from 'vitest';
import { openDatabase, SERVER_BUSY_TIMEOUT_MS } from '../../src/db/database.js';
import { SqliteClient } from '../../src/db/sql/sqliteClient.js';
import { testTempDir } from '../support/tempDir.js';
import { webhookNodeCases } from '../support/webhookNodes.js';

/** Opened as the server opens it: a write waits for the other node's lock on timers, not inside SQLite. */
function client(file: string): SqliteClient {
  const db = openDatabase(file, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
  const sql = new SqliteClient(db);
  onTestFinished(async () => {
    await sql.close();
    db.close();
  });
  return sql;
}

describe('webhook deliveries sent by two nodes on one SQLite file', () => {
  webhookNodeCases(async () => {
    const file = join(testTempDir('folio-webhook-nodes-'), 'folio.db');
    return [client(file), client(file)];
  });
});
