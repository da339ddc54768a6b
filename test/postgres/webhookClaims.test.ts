/**
 * Webhook deliveries claimed before they are sent (#32), on PostgreSQL: two dispatchers, each
 * with a client (a pool) of its own, on one database, as two nodes would be.
 */
import { describe, onTestFinished } from 'vitest';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { usePostgres } from '../support/postgresRepos.js';
import { webhookNodeCases } from '../support/webhookNodes.js';

const { server } = usePostgres();

function client(url: string): PostgresClient {
  const sql = new PostgresClient(url);
  onTestFinished(() => sql.close());
  return sql;
}

describe('webhook deliveries sent by two nodes on one PostgreSQL database', () => {
  webhookNodeCases(async () => {
    const url = await server().createDatabase();
    await migratePostgres(url);
    return [client(url), client(url)];
  });
});
