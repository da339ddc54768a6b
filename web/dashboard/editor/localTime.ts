/**
 * The Schedule field: a `datetime-local` value is the author's wall-clock time in the browser's
 * time zone; the API stores UTC. No DOM, so test/unit/dashboard/localTime.test.ts checks it.
 */

const pad = (n: number): string => String(n).padStart(2, '0');

/** `2026-12-01T09:30` (local) → `2026-12-01T00:30:00.000Z` in Seoul; null when not a time. */
export function localInputToUtc(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number | undefined];
  const date = new Date(y, mo - 1, d, h, mi, Number.isNaN(s) || s === undefined ? 0 : s);
  // A wall-clock time that does not exist (a spring-forward gap) moves; refuse rather than guess.
  if (date.getFullYear() !== y || date.getMonth() !== mo - 1 || date.getDate() !== d || date.getHours() !== h || date.getMinutes() !== mi) return null;
  return date.toISOString();
}

/** A UTC timestamp as a `datetime-local` value in the browser's time zone. */
export function utcToLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The browser's time zone name for the field's label (`Asia/Seoul`), or the UTC offset. */
export function timeZoneName(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) return zone;
  const offset = -new Date().getTimezoneOffset();
  return `UTC${offset >= 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}
