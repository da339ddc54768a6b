import { defineConfig } from 'vitest/config';

// The PostgreSQL suite (npm run test:postgres): a real PostgreSQL server from Debian's package
// (which .ci/run installs), started by each test file in a temporary directory on a loopback port
// (test/support/postgres.ts). Issue #32 grows it into the whole integration suite on PostgreSQL.
export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
