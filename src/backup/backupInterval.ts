/**
 * FOLIO_BACKUP_INTERVAL → the node-cron expression the server's scheduler runs backups on.
 * Durations map to wall-clock-aligned schedules (`1h` is on the hour, `6h` at 00/06/12/18 UTC),
 * so only durations that divide an hour or a day evenly are accepted: `90m` as a cron step
 * would run at :00 and :30 of alternate hours, not every 90 minutes, and the recovery point
 * promised in docs/operations.md would be wrong. Anything else can be written as a cron expression.
 */
import { createRequire } from 'node:module';

export interface BackupSchedule {
  /** A node-cron expression with seconds (six fields), evaluated in UTC. */
  readonly cron: string;
  /** What the operator wrote, for logs: `1h`, `0 3 * * *`. */
  readonly label: string;
}

const DURATION = /^(\d{1,4})\s*([mhd])$/;

/** The schedule, null for `off` (or unset), or a sentence saying what is wrong. */
export function parseBackupInterval(raw: string | undefined): BackupSchedule | null | string {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'off') return null;
  const duration = DURATION.exec(value);
  if (duration) {
    const n = Number(duration[1]);
    const unit = duration[2];
    const cronExpression = durationCron(n, unit === 'm' ? 'm' : unit === 'h' ? 'h' : 'd');
    if (cronExpression) return { cron: cronExpression, label: value };
    return `"${raw}" does not divide ${unit === 'm' ? 'an hour' : 'a day'} evenly; use one of 1m…30m that divides 60 (5m, 10m, 15m, 30m), 1h…12h that divides 24 (1h, 2h, 3h, 4h, 6h, 8h, 12h), 1d, or a cron expression`;
  }
  if (value.includes(' ')) {
    const fields = value.split(/\s+/);
    // node-cron only for a cron expression, so that a server without one does not load it at start.
    const cron = createRequire(import.meta.url)('node-cron') as typeof import('node-cron');
    if ((fields.length === 5 || fields.length === 6) && cron.validate(value)) {
      return { cron: fields.length === 5 ? `0 ${fields.join(' ')}` : fields.join(' '), label: value };
    }
    return `"${raw}" is not a valid cron expression`;
  }
  return `expected off, a duration such as 30m, 1h, 6h or 1d, or a cron expression, got "${raw}"`;
}

function durationCron(n: number, unit: 'm' | 'h' | 'd'): string | null {
  if (n <= 0) return null;
  if (unit === 'm') {
    if (n === 60) return durationCron(1, 'h');
    return 60 % n === 0 ? `0 */${n} * * * *` : null;
  }
  if (unit === 'h') {
    if (n === 24) return durationCron(1, 'd');
    return 24 % n === 0 ? `0 0 */${n} * * *` : null;
  }
  return n === 1 ? '0 0 0 * * *' : null;
}
