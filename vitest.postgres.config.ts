import { defineConfig } from 'vitest/config';

/**
 * The PostgreSQL pass (npm run test:postgres, called by .ci/run): a real PostgreSQL from Debian's
 * package, started once per run as an unprivileged user on a loopback port
 * (test/support/globalSetupPostgres.ts). The repository and client suites of test/postgres/, and
 * the integration files below with FOLIO_DATABASE_URL set: every test app gets a database of its
 * own. A test whose apps, spawned servers or `folio` runs start on a data dir of its own (data
 * prepared before the app starts, restarts, the CLI beside a server) asks for one too:
 * freshDataEnv (test/support/testApp.ts) or freshDatabaseEnv (test/support/freshDatabase.ts),
 * then TestApp.cliEnv or SpawnedServer.cliEnv for what runs beside. A case that only makes sense
 * on SQLite keeps its data dir's SQLite file in this pass too, saying why: cliErrors' locked
 * database (SQLite's file lock) and mediaDomainChange's data dir from before the fix (it rewinds
 * SQLite's migration 017). Where the two differ by design a case says so and checks each: rest
 * watches SQLite's write connection (PostgreSQL's pool closes its own), webhooks' crashed
 * server's delivery waits on PostgreSQL for the dead node's claim to lapse (src/main.ts), and
 * backups' restore refuses a data dir holding SQLite's file on SQLite and a database holding
 * Folio's rows on PostgreSQL (every other restore goes into an empty database of its own).
 * The other files of test/integration/ stay SQLite's:
 * - by design: publishBursts.property (copies the database with VACUUM INTO), coalescedPublishing
 *   (reads SQLite's connection synchronously, in the answer's own turn), webhookClaims, warmUp,
 *   domainMigration and mediaRefsMigration (SQLite's migrations, files and claims at start).
 * Pure static checks (bundles, lint, the image, the generated clients) have nothing to do here.
 */
const integration = [
  'account',
  'accountDelete',
  'accountExportLoop',
  'accountKeys',
  'accountKeysCli',
  'analytics',
  'apiDocs',
  'apiKeys',
  'auth',
  'backups',
  'blogs',
  'cdnPurge',
  'cdnPurgers',
  'cliBesideServer',
  'cliErrors',
  'cliHelp',
  'storeHang',
  'conditionalWrites',
  'cors',
  'crossAccount',
  'dashboardFirstStart',
  'dashboardPagesBudget',
  'dashboardPasswords',
  'dashboardPreviewFrame',
  'dashboardSessions',
  'defaultPlan',
  'discover',
  'domainContention',
  'domains',
  'domainVerification',
  'errors',
  'exportImport',
  'hostile.property',
  'hostileInputs',
  'idempotency',
  'keyExpiry',
  'leftovers',
  'limits',
  'markdownTwins',
  'mcp',
  'mcpTools',
  'mcpTransport',
  'media',
  'mediaDeletion',
  'mediaDomainChange',
  'mediaFairness',
  'metrics',
  'migrateFromGenerators',
  'moveToS3',
  'openapi',
  'planDowngrade',
  'planGating',
  'postAliases',
  'postRevisions',
  'posts',
  'postStates',
  'postTextCounts',
  'previews',
  'publishBesideFullRender',
  'publishing',
  'publishingFaults',
  'publishingLargeBlog',
  'publishingS3',
  'publishJobs',
  'rateLimits',
  'rebuildBeforeStart',
  'redirectTakeover',
  'republishUnchanged',
  'reRenderAfterUpgrade',
  'responseHeaders',
  'rest',
  'routes.property',
  'scheduling',
  'search',
  'searchDocumentsSlices',
  'shutdown',
  'siteCompression',
  'siteNavigation',
  'siteServer.property',
  'smoke',
  'socialCards',
  'startupReadiness',
  'staticSearch',
  'staticSearchQueue',
  'storeGuards',
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
