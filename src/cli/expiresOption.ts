/** `--expires 30d|90d|1y|<ISO date-time>`: when a key made by the CLI stops working. */
import { expiryProblem } from '../services/keyExpiry.js';
import { parseTimestamp, TIMESTAMP_HINT } from '../services/timestamps.js';
import { UsageError } from './cliErrors.js';

const DURATION = /^([1-9][0-9]{0,5})([dy])$/;

/** The instant `--expires` names, counted from `now`; null when the option is absent. */
export function parseExpires(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  const duration = DURATION.exec(value);
  let expiresAt: Date | null;
  if (duration) {
    const count = Number(duration[1]);
    expiresAt = new Date(now.getTime());
    // Years are calendar years, as the API's ten-year bound is.
    if (duration[2] === 'y') expiresAt.setUTCFullYear(expiresAt.getUTCFullYear() + count);
    else expiresAt.setTime(now.getTime() + count * 86_400_000);
  } else {
    expiresAt = parseTimestamp(value);
    if (!expiresAt)
      throw new UsageError(
        `--expires takes a number of days or years (30d, 90d, 1y) or a date-time that ${TIMESTAMP_HINT.replace(/^must be/, 'is')}, like 2027-03-24T10:00:00Z`,
      );
  }
  const problem = expiryProblem(expiresAt, now);
  if (problem) throw new UsageError(`--expires ${problem} (it names ${expiresAt.toISOString()})`);
  return expiresAt;
}
