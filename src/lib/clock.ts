/** Injected wherever time matters, so tests can move it (scheduling, rate-limit windows). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds, the only timestamp format the API returns. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
