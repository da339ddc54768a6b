import { defineConfig } from 'vitest/config';

/**
 * The PostgreSQL pass (npm run test:postgres, called by .ci/run): a real PostgreSQL from Debian's
 * package, started once per run as an unprivileged user on a loopback port
 * (test/support/globalSetupPostgres.ts). The repository and client suites of test/postgres/, and
 * the integration files below with FOLIO_DATABASE_URL set: every test app gets a database of its
 * own. Files that reach into SQLite's file or connection directly stay SQLite's (issue #32 grows
 * this list).
 */
const integration = [
  'account',
  'accountDelete',
  'accountExportLoop',
  'accountKeys',
  'apiDocs',
  'apiKeys',
  'auth',
  'blogs',
  'cdnPurge',
  'cdnPurgers',
  'cors',
  'dashboardPagesBudget',
  'dashboardPreviewFrame',
  'discover',
  'domainContention',
  'domains',
  'domainVerification',
  'errors',
  'hostile.property',
  'hostileInputs',
  'limits',
  'markdownTwins',
  'mcp',
  'mcpTools',
  'mcpTransport',
  'media',
  'metrics',
  'migrateFromGenerators',
  'openapi',
  'planGating',
  'postAliases',
  'postStates',
  'posts',
  'postTextCounts',
  'publishing',
  'publishingFaults',
  'publishingS3',
  'publishJobs',
  'rateLimits',
  'reRenderAfterUpgrade',
  'responseHeaders',
  'rest',
  'routes.property',
  'scheduling',
  'search',
  'searchDocumentsSlices',
  'siteCompression',
  'siteNavigation',
  'siteServer.property',
  'smoke',
  'socialCards',
  'staticSearch',
  'storeOutage',
  'sync',
  'tlsAllowed',
  'webhooks',
];

export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts', ...integration.map((name) => `test/integration/${name}.test.ts`)],
    globalSetup: ['test/support/globalSetupPostgres.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
