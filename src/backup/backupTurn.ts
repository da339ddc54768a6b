/**
 * Several nodes on one PostgreSQL database (docs/operations.md, "Several nodes") each run the
 * backup schedule: the first node to claim a scheduled time writes that backup, the others skip
 * it (issue #32: "backups are written by one node"). A transaction-scoped advisory lock makes the
 * claim one node's at a time, as the scheduler's publishDue does; the claimed time is recorded
 * in `settings`, so a node whose timer fires after the winner has finished finds it taken.
 */
import { SettingsRepo } from '../db/settingsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';

/** Any constant of Folio's own: the lock is taken here alone. */
const BACKUP_LOCK = 0x466f6c696f42; // "FolioB"
const CLAIMED = 'backup_claimed_slot';

/**
 * The scheduled time a backup run belongs to: its minute. A cron schedule's times are whole
 * minutes at the least apart, and the nodes' timers fire within moments of each other.
 */
export function backupSlot(at: Date): string {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
}

/** True for the one node that gets to write the backup of `slot`. */
export async function claimBackupSlot(sql: SqlClient, slot: string, now: string): Promise<boolean> {
  return sql.transaction(async (tx) => {
    if (!(await tx.get<{ taken: boolean }>('SELECT pg_try_advisory_xact_lock(?) AS taken', [BACKUP_LOCK]))?.taken) return false;
    const settings = new SettingsRepo(tx);
    // ISO 8601 UTC: text order is time order.
    const last = await settings.get(CLAIMED);
    if (last !== null && last >= slot) return false;
    await settings.set(CLAIMED, slot, now);
    return true;
  });
}
