/** Timestamps the API accepts (`scheduled_at`, `published_at`, `expires_at`), and import checks the same way. */
import { BadRequestError } from '../domain/errors.js';

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Date rolls `2030-02-30` over to March 2 and `24:00` to the next day; neither is a real time. */
function isRealDateTime(fields: number[]): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = fields;
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    probe.getUTCFullYear() === year &&
    probe.getUTCMonth() === month - 1 &&
    probe.getUTCDate() === day &&
    probe.getUTCHours() === hour &&
    probe.getUTCMinutes() === minute &&
    probe.getUTCSeconds() === second
  );
}

/** ISO 8601 with an explicit zone (a bare local time would be ambiguous), or null. */
export function parseTimestamp(value: string): Date | null {
  const match = ISO_WITH_ZONE.exec(value);
  const date = new Date(value);
  if (!match || Number.isNaN(date.getTime()) || !isRealDateTime(match.slice(1, 7).map((part) => Number(part ?? 0)))) return null;
  return date;
}

export const TIMESTAMP_HINT = 'must be an ISO 8601 datetime with a time zone';

/** `value` as the API's `field`, or the 400 that names the field. */
export function requireTimestamp(field: string, value: string): Date {
  const date = parseTimestamp(value);
  if (!date) {
    throw new BadRequestError(`${field} must be an ISO 8601 datetime with a time zone, like 2027-03-24T10:00:00Z`, {
      details: [{ field, message: TIMESTAMP_HINT }],
    });
  }
  return date;
}
