/** When a key may expire and whether it has (docs/api-behaviour.md): the API and the CLI share these rules. */
import type { ApiKey } from '../db/apiKeysRepo.js';
import { BadRequestError } from '../domain/errors.js';

/** Ten calendar years after `now`, the latest `expires_at` a key may be given. */
export function latestExpiry(now: Date): Date {
  const latest = new Date(now.getTime());
  latest.setUTCFullYear(latest.getUTCFullYear() + 10);
  return latest;
}

/** What is wrong with `expiresAt` as a new key's expiry, or null when it is fine. */
export function expiryProblem(expiresAt: Date, now: Date): string | null {
  if (expiresAt.getTime() <= now.getTime()) return 'must be in the future';
  if (expiresAt.getTime() > latestExpiry(now).getTime()) return 'must be at most ten years ahead';
  return null;
}

/** Throws the 400 the API answers for an expiry out of bounds. */
export function checkExpiry(expiresAt: Date | null, now: Date): void {
  if (expiresAt === null) return;
  const problem = expiryProblem(expiresAt, now);
  if (problem) throw new BadRequestError(`expires_at ${problem} (now is ${now.toISOString()})`, { details: [{ field: 'expires_at', message: problem }] });
}

/** Expired from the instant `expires_at` names on. */
export function isExpired(key: Pick<ApiKey, 'expiresAt'>, now: Date): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime();
}
