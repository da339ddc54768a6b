/**
 * A running server whose data dir was moved to another store under it (`folio site
 * migrate-store` while it ran, or a second server started with other settings): what it
 * published afterwards went into the old store, which nobody reads any more, and was lost. It
 * notices on its scheduler tick (one settings read) and before each publish job, logs it once,
 * and fails its publish jobs with a retryable error until it is restarted with the new settings.
 */
import type { Config } from '../config/config.js';
import type { SettingsRepo } from '../db/settingsRepo.js';
import type { Logger } from '../lib/logger.js';
import { describeStore, readStoreRecord, sameStore, storeRecordOf } from './storeSettings.js';

/** Thrown at a publish job while the recorded store is not this process's: the job stays pending. */
export class StoreMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreMovedError';
  }
}

export class StoreWatch {
  private logged = false;

  constructor(private readonly deps: { settings: SettingsRepo; config: Config; logger: Logger }) {}

  /** Why this process must not publish now, or null while the recorded store is its own (or none is recorded). */
  async check(): Promise<string | null> {
    const { settings, config, logger } = this.deps;
    const recorded = await readStoreRecord(settings);
    const own = storeRecordOf(config);
    if (!recorded || sameStore(recorded, own)) {
      this.logged = false;
      return null;
    }
    const message =
      `this data dir now publishes to ${describeStore(recorded, config.dataDir)}, but this server publishes to ${describeStore(own, config.dataDir)}: ` +
      'it publishes nothing (jobs stay pending and retry) until it is restarted with the settings of the recorded store (README "Moving to another store")';
    if (!this.logged) {
      this.logged = true;
      logger.error({ recorded: describeStore(recorded, config.dataDir), own: describeStore(own, config.dataDir) }, message);
    }
    return message;
  }

  /** Throws StoreMovedError when check() finds the store moved. */
  async assertOwnStore(): Promise<void> {
    const moved = await this.check();
    if (moved !== null) throw new StoreMovedError(moved);
  }
}
