/** Process entry: config → compose → first-start account → listen → catch-up + scheduler. */
import './runtime/threadPool.js';
import './runtime/sdkWarnings.js';
import { ConfigError, loadConfig } from './config/config.js';
import { compose } from './compose/compose.js';
import { databaseFile } from './compose/adapters.js';
import type { Folio } from './compose/folio.js';
import { databaseOpenFailure } from './db/databaseFailure.js';
import { StoreMismatchError } from './services/storeSettings.js';
import { DatabaseUnavailableError } from './db/sql/sqlClient.js';
import { createHttpServer } from './http/httpServer.js';
import { RequestActivity } from './warmup/idleSteps.js';
import { warmUpAfterFirstRequest } from './warmup/startupWarmUp.js';
import { Rest } from './warmup/rest.js';
import { collectGarbage } from './runtime/collectGarbage.js';
import { createLogger, flushLogs } from './lib/logger.js';
import { planSummary } from './domain/plans.js';
import { startScheduler } from './runtime/scheduler.js';
import { createShutdown } from './runtime/shutdown.js';
import { removeServerPid, writeServerPid } from './runtime/serverPidFile.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`folio: configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  // A data dir or database the operator must fix, or a store change nobody migrated: one line
  // naming the path and what to do (on stderr and in the log), never a stack trace.
  const refuseToStart = async (message: string): Promise<never> => {
    logger.fatal(message);
    await flushLogs(logger);
    process.stderr.write(`folio: ${message}\n`);
    process.exit(1);
  };
  const startFailure = (err: unknown): string | null => {
    if (err instanceof StoreMismatchError || err instanceof DatabaseUnavailableError) return err.message;
    return databaseOpenFailure(err, databaseFile(config))?.message ?? null;
  };
  let folio: Folio;
  try {
    // Records FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME for the CLI; a change re-renders every blog (on the tick below).
    folio = await compose({ config, logger, publicUrls: 'server' });
  } catch (err) {
    const message = startFailure(err);
    if (message === null) throw err;
    return refuseToStart(message);
  }
  let first: Awaited<ReturnType<Folio['accounts']['bootstrap']>>;
  try {
    // The store this data dir publishes to: recorded on first start, refused when another is configured.
    await folio.settleStore();
    // For commands that must not run beside a server (`folio site migrate-store`); removed at a clean exit.
    // Before the bootstrap: nothing may fail between creating the first account and printing its key.
    writeServerPid(config.dataDir);
    first = await folio.accounts.bootstrap(config.defaultPlan);
  } catch (err) {
    const message = startFailure(err);
    if (message === null) throw err;
    await folio.close().catch(() => undefined);
    return refuseToStart(message);
  }
  if (first) {
    // The person's way in: the dashboard, signed in by a link that works once, for 15 minutes.
    const link = await folio.loginLinks.create(first.account.id);
    // Printed once, outside the JSON log stream, because a fresh install needs a working key from
    // `npm start` alone; it is never logged again and only its hash is stored.
    process.stdout.write(
      [
        '',
        '================================================================================',
        ' Folio: first start. Created an account and its API key.',
        ` Account: ${first.account.id}`,
        ` Plan:    ${first.account.plan} (FOLIO_DEFAULT_PLAN): ${planSummary(first.account.plan)}`,
        ` API key: ${first.apiKey}`,
        ` Sign in: ${link?.url ?? '(no link)'}`,
        '          opens the dashboard in a browser; works once, for 15 minutes',
        `          (\`folio account login-link ${first.account.id}\` makes another).`,
        ' This key is shown only now. Store it somewhere safe. It stays in any log that',
        ' captured this output (container logs): in production, make the first account with',
        ' `folio account create` before the first start instead (README, "Docker").',
        '================================================================================',
        '',
      ].join('\n') + '\n',
    );
  }

  // One server per SQLite data dir (its pid file): a webhook delivery still claimed was being sent
  // by a process that died, and goes out at once. On PostgreSQL other nodes' claims are live.
  if (folio.sql.dialect === 'sqlite') await folio.repos.webhooks.releaseAll();
  // An upgrade that changed the theme or the renderer re-renders every blog (on the tick below).
  await folio.reRenderAfterUpgrade();
  // A static search index a stopped process left behind its posts is laid out afresh (in the background).
  await folio.publisher.resumeStaticSearch();

  const server = createHttpServer(folio.listener, logger);
  const activity = new RequestActivity(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info(
    { host: config.host, port: config.port, storage: config.storage, serviceDomain: folio.config.serviceDomain, publicScheme: folio.config.publicScheme },
    'folio listening',
  );
  // Written now, not at the next periodic flush: this is the line a new user waits for.
  logger.flush();

  folio
    .removeLeftovers()
    .then(({ backups, temps }) => {
      if (backups.length + temps.length === 0) return;
      logger.info({ backups, temps: temps.length, firstTemps: temps.slice(0, 5) }, 'removed what killed backups and writes left behind');
    })
    .catch((err: unknown) => logger.warn({ err }, 'removing the leftovers of killed backups and writes failed; the next start tries again'));
  // Schedules that fell due while the server was down, and jobs a crash or an upgrade left
  // pending, start now in the background: readiness never waits for them (re-rendering every
  // blog after an upgrade can take minutes), and the scheduler's tick below continues them.
  folio.tick().catch((err: unknown) => logger.error({ err }, 'start-up catch-up failed; the scheduler retries'));
  // Lazy libraries, worker threads, and the indexes and listings in use before the restart.
  warmUpAfterFirstRequest({
    server,
    activity,
    logger,
    metrics: folio.metrics,
    heavy: folio.heavy,
    analytics: config.serveSites ? folio.analytics : null,
    warmUp: folio.warmUp,
  });
  // And after FOLIO_REST_AFTER without a request, what only use needs is let go again.
  const rest = new Rest({
    activity,
    afterMs: config.restAfterMs,
    warmUp: folio.warmUp,
    threads: [folio.heavy, folio.media],
    database: { rest: () => folio.restDatabase() },
    counting: config.serveSites ? folio.analytics : null,
    collect: collectGarbage,
    logger,
  });
  rest.start();

  const scheduler = startScheduler(
    {
      everySecond: () => folio.tick(),
      everyMinute: async () => {
        await folio.warmUp.remember();
        await folio.domains.checkPending();
        // Several nodes: a scheduled backup whose node died before it ended is written here.
        if (config.backupSchedule) await folio.backups.takeOverAbandoned();
      },
      ...(config.backupSchedule ? { backup: { cron: config.backupSchedule.cron, run: () => folio.backups.scheduled() } } : {}),
    },
    logger,
  );
  if (config.backupSchedule) {
    logger.info({ schedule: config.backupSchedule.label, keep: config.backupKeep }, 'backups into the store scheduled (FOLIO_BACKUP_INTERVAL)');
    if (config.storage === 's3') {
      logger.warn(
        { bucket: config.s3.bucket },
        'scheduled backups do NOT copy uploaded images: they stay in the bucket, beside the backups; protect the bucket itself (versioning, replication), or take `folio backup <file>`, which copies them',
      );
    }
  }

  const shutdown = createShutdown({
    server,
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    stopIntake: () => {
      rest.stop();
      return scheduler.stop();
    },
    // Waits for running publish jobs, then stops the worker threads and the checkpointer, and closes the database.
    close: async () => {
      await folio.close();
      removeServerPid(config.dataDir);
    },
    exit: (code) => process.exit(code),
  });
  const onSignal = (signal: string) => () => {
    // createShutdown settles every failure itself and exits; this catch is the last resort.
    shutdown(signal).catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', onSignal('SIGTERM'));
  process.on('SIGINT', onSignal('SIGINT'));
}

await main();
