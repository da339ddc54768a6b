import type { TestProject } from 'vitest/node';
import setup from './globalSetup.js';
import { startPostgres } from './postgres.js';

/**
 * The PostgreSQL pass (vitest.postgres.config.ts): the suite's usual services, and one PostgreSQL
 * cluster (test/support/postgres.ts) on which every test app gets a database of its own.
 */
export default async function setupWithPostgres(project: TestProject): Promise<() => Promise<void>> {
  const teardown = await setup(project);
  const postgres = await startPostgres().catch(async (err: unknown) => {
    await teardown();
    throw err;
  });
  project.provide('postgresBase', postgres.base);
  return async () => {
    await postgres.stop();
    await teardown();
  };
}
