/** Process entry: config → compose → first-start account → listen → catch-up + scheduler. */
import './threadPool.js';
import './sdkWarnings.js';
import { ConfigError, loadConfig } from './config.js';
import { compose } from './compose/compose.js';
import { databaseFile } from './compose/adapters.js';
import type { Folio } from './compose/folio.js';
import { databaseOpenFailure } from './db/databaseFailure.js';
import { StoreMismatchError } from './services/storeSettings.js';
import { createHttpServer } from './http/httpServer.js';
import { RequestActivity, runWhenIdle } from './http/idleSteps.js';
import { jsonParser } from './http/middleware/jsonBody.js';
import { schemaWarmUpSteps, validators } from './http/middleware/validate.js';
import { loadMarkdownPipeline } from './content/markdown.js';
import { createLogger, flushLogs } from './logger.js';
import { planSummary } from './services/plans.js';
import { startScheduler } from './scheduler.js';
import { createShutdown } from './shutdown.js';
import { removeServerPid, writeServerPid } from './serverPidFile.js';

/**
 * Libraries left out of start-up (ajv, the Markdown pipeline, the JSON body parser, prom-client)
 * are loaded now, and the worker threads started, one step per turn of the event loop while no
 * request is in flight (http/idleSteps.ts), so that neither the first answer nor the first post
 * waits.
 */
function warmUp(activity: RequestActivity, logger: ReturnType<typeof createLogger>, folio: Pick<Folio, 'heavy' | 'metrics' | 'media'>): void {
  const loadMetrics = (): void => {
    folio.metrics.load().catch((err: unknown) => logger.warn({ err }, 'loading the metrics failed; GET /metrics tries again'));
  };
  // prom-client first: until it loads, request observations wait in a bounded queue (metrics.ts).
  const steps = [loadMetrics, () => void validators(), ...schemaWarmUpSteps(), loadMarkdownPipeline, () => void jsonParser(), () => folio.heavy.prestart(), () => folio.media.loadPipeline()];
  void runWhenIdle(activity, steps, (err) => logger.warn({ err }, 'warm-up step failed; it runs again on first use'));
}

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
    if (err instanceof StoreMismatchError) return err.message;
    return databaseOpenFailure(err, databaseFile(config))?.message ?? null;
  };
  let folio: Folio;
  try {
    // Records FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME for the CLI; a change re-renders every blog (on the tick below).
    folio = compose({ config, logger, publicUrls: 'server' });
  } catch (err) {
    const message = startFailure(err);
    if (message === null) throw err;
    return refuseToStart(message);
  }
  let first: ReturnType<Folio['accounts']['bootstrap']>;
  try {
    // The store this data dir publishes to: recorded on first start, refused when another is configured.
    await folio.settleStore();
    first = folio.accounts.bootstrap(config.defaultPlan);
    // For commands that must not run beside a server (`folio site migrate-store`); removed at a clean exit.
    writeServerPid(config.dataDir);
  } catch (err) {
    const message = startFailure(err);
    if (message === null) throw err;
    await folio.close().catch(() => undefined);
    return refuseToStart(message);
  }
  if (first) {
    // Printed once, outside the JSON log stream, because decisions.md wants a working key from
    // `npm start` alone; it is never logged again and only its hash is stored.
    process.stdout.write(
      [
        '',
        '================================================================================',
        ' Folio: first start. Created an account and its API key.',
        ` Account: ${first.account.id}`,
        ` Plan:    ${first.account.plan} (FOLIO_DEFAULT_PLAN): ${planSummary(first.account.plan)}`,
        ` API key: ${first.apiKey}`,
        ' This key is shown only now. Store it somewhere safe. It stays in any log that',
        ' captured this output (container logs): in production, make the first account with',
        ' `folio account create` before the first start instead (README, "Docker").',
        '================================================================================',
        '',
      ].join('\n') + '\n',
    );
  }

  // An upgrade that changed the theme or the renderer re-renders every blog (on the tick below).
  folio.reRenderAfterUpgrade();

  const server = createHttpServer(folio.app.callback(), logger);
  const activity = new RequestActivity(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info({ host: config.host, port: config.port, storage: config.storage, serviceDomain: folio.config.serviceDomain, publicScheme: folio.config.publicScheme }, 'folio listening');
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
  // Warming starts once the first request is answered (an orchestrator's health check, usually),
  // or after a second without one: its steps hold the loop for tens of milliseconds each, which
  // the first request of a fresh process would otherwise wait out.
  let warming: NodeJS.Timeout | undefined;
  const startWarming = (): void => {
    if (warming === undefined) return;
    clearTimeout(warming);
    warming = undefined;
    server.off('request', onFirstRequest);
    warmUp(activity, logger, folio);
    // Search indexes and listings in use before the restart, loaded again so that the first query
    // and the first publish of those blogs do not wait for them.
    folio.warmUp.warm({ whenQuiet: () => activity.whenIdle(2_000, 30) }).catch((err: unknown) => logger.warn({ err }, 'warm-up failed; indexes and listings load on first use'));
  };
  const onFirstRequest = (_req: unknown, res: import('node:http').ServerResponse): void => {
    res.once('close', () => setImmediate(startWarming));
  };
  warming = setTimeout(startWarming, 1000).unref();
  server.on('request', onFirstRequest);

  const scheduler = startScheduler(
    {
      everySecond: () => folio.tick(),
      everyMinute: async () => {
        await folio.warmUp.remember();
        await folio.domains.checkPending();
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
    stopIntake: () => scheduler.stop(),
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
