/** Process entry: config → compose → first-start account → catch-up → listen + scheduler. */
import './threadPool.js';
import { ConfigError, loadConfig } from './config.js';
import { compose } from './compose.js';
import { createHttpServer } from './http/httpServer.js';
import { createLogger } from './logger.js';
import { startScheduler } from './scheduler.js';

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
  // Records FOLIO_SERVICE_DOMAIN / FOLIO_PUBLIC_SCHEME for the CLI; a change re-renders every blog (on the tick below).
  const folio = compose({ config, logger, publicUrls: 'server' });

  const first = folio.accounts.bootstrap();
  if (first) {
    // Printed once, outside the JSON log stream, because decisions.md wants a working key from
    // `npm start` alone; it is never logged again and only its hash is stored.
    process.stdout.write(
      [
        '',
        '================================================================================',
        ' Folio: first start. Created an enterprise account and its API key.',
        ` Account: ${first.account.id}`,
        ` API key: ${first.apiKey}`,
        ' This key is shown only now. Store it somewhere safe.',
        '================================================================================',
        '',
      ].join('\n') + '\n',
    );
  }

  // An upgrade that changed the theme or the renderer re-renders every blog (on the tick below).
  folio.reRenderAfterUpgrade();

  // Schedules that fell due while the server was down, and jobs a crash left pending.
  await folio.tick();

  const server = createHttpServer(folio.app.callback(), logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  logger.info({ host: config.host, port: config.port, storage: config.storage, serviceDomain: folio.config.serviceDomain, publicScheme: folio.config.publicScheme }, 'folio listening');

  const scheduler = startScheduler(
    { everySecond: () => folio.tick(), everyMinute: () => folio.domains.checkPending() },
    logger,
  );

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    server.closeIdleConnections();
    await scheduler.stop();
    await folio.close();
    logger.flush();
    process.exit(0);
  };
  const onSignal = (signal: string) => () => {
    shutdown(signal).catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      logger.flush();
      process.exit(1);
    });
  };
  process.on('SIGTERM', onSignal('SIGTERM'));
  process.on('SIGINT', onSignal('SIGINT'));
}

await main();
