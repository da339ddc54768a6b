/**
 * Several nodes on one PostgreSQL database (docs/operations.md, "Several nodes") each run the
 * backup schedule: the first node to claim a scheduled time writes that backup, the others skip
 * it (issue #32: "backups are written by one node"). A transaction-scoped advisory lock makes the
 * claim one node's at a time, as the scheduler's publishDue does; the claimed time is recorded
 * in `settings`, so a node whose timer fires after the winner has finished finds it taken.
 *
 * A claim is a lease: the node writing the backup renews it while it runs and records the time
 * done when it ends. A node that dies meanwhile stops renewing, and once the lease has lapsed
 * another node takes the backup over (`takeOverBackupSlot`), so a scheduled time is never left
 * without a backup because its claimant died.
 */
import { SettingsRepo } from '../db/settingsRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';

/** Any constant of Folio's own: the lock is taken here alone. */
const BACKUP_LOCK = 0x466f6c696f42; // "FolioB"
const CLAIMED = 'backup_claimed_slot';
/** Until when the claimant of CLAIMED answers for it (renewed while its backup runs). */
const LEASE = 'backup_claim_until';
/** The last claimed time whose backup ended, written or failed. */
const DONE = 'backup_done_slot';

/**
 * The scheduled time a backup run belongs to: its minute. A cron schedule's times are whole
 * minutes at the least apart, and the nodes' timers fire within moments of each other.
 */
export function backupSlot(at: Date): string {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
}

/** Runs `work` holding the backup lock; false when another node holds it now. */
async function locked(sql: SqlClient, work: (settings: SettingsRepo) => Promise<boolean>): Promise<boolean> {
  return sql.transaction(async (tx) => {
    if (!(await tx.get<{ taken: boolean }>('SELECT pg_try_advisory_xact_lock(?) AS taken', [BACKUP_LOCK]))?.taken) return false;
    return work(new SettingsRepo(tx));
  });
}

/** True for the one node that gets to write the backup of `slot`; its claim lasts until `until`. */
export function claimBackupSlot(sql: SqlClient, slot: string, now: string, until: string): Promise<boolean> {
  return locked(sql, async (settings) => {
    // ISO 8601 UTC: text order is time order.
    const last = await settings.get(CLAIMED);
    if (last !== null && last >= slot) return false;
    await settings.set(CLAIMED, slot, now);
    await settings.set(LEASE, until, now);
    return true;
  });
}

/** Moves the claim of `slot` on to `until`; false when the slot is no longer the one claimed. */
export function renewBackupClaim(sql: SqlClient, slot: string, now: string, until: string): Promise<boolean> {
  return locked(sql, async (settings) => {
    if ((await settings.get(CLAIMED)) !== slot) return false;
    await settings.set(LEASE, until, now);
    return true;
  });
}

/** Records that the backup of `slot` ended: nobody takes it over. */
export async function finishBackupSlot(sql: SqlClient, slot: string, now: string): Promise<void> {
  // Retried on a busy lock: the record must land, or another node would write the slot again.
  for (let tries = 0; tries < 50; tries++) {
    const done = await locked(sql, async (settings) => {
      const last = await settings.get(DONE);
      if (last === null || last < slot) await settings.set(DONE, slot, now);
      return true;
    });
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The claimed time whose claimant stopped renewing before it ended (it died), now claimed by
 * the caller until `until`; null when there is none.
 */
export async function takeOverBackupSlot(sql: SqlClient, now: string, until: string): Promise<string | null> {
  let slot: string | null = null;
  await locked(sql, async (settings) => {
    const claimed = await settings.get(CLAIMED);
    if (claimed === null) return false;
    const done = await settings.get(DONE);
    if (done !== null && done >= claimed) return false;
    // A claim from before leases (no lease recorded) is left as it was.
    const lease = await settings.get(LEASE);
    if (lease === null || lease > now) return false;
    await settings.set(LEASE, until, now);
    slot = claimed;
    return true;
  });
  return slot;
}
