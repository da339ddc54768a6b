import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BadRequestError } from '../domain/errors.js';

/**
 * scrypt from node:crypto (no native dependency), on libuv's thread pool so hashing never blocks
 * the event loop. N = 2^15, r = 8, p = 1 costs 32 MiB and some tens of milliseconds per hash
 * (RFC 7914's interactive-login figure; OWASP asks for 2^17, 128 MiB, which a few concurrent
 * sign-ins on a small server would turn into memory pressure: attempts are rate-limited
 * instead, docs/dashboard.md#passwords); 16 bytes of salt, 64 bytes of key. Stored as `scrypt$N$r$p$salt$hash` (base64url), so the
 * parameters can grow later without breaking stored hashes.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 64;
const SALT_BYTES = 16;
/** 128 · N · r bytes, with room: node refuses above its 32 MiB default. */
const MAX_MEM = 64 * 1024 * 1024;

/** Sign-in attempts allowed per client address and per email, per window (docs/dashboard.md#passwords). */
export const SIGN_IN_LIMITS = { perAddress: 30, perAccount: 10, windowMs: 15 * 60 * 1000 } as const;

export const PASSWORD_MIN_CHARS = 10;
export const PASSWORD_MAX_CHARS = 256;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The same text however the keyboard or input method composed it (NFC: Hangul typed as jamo or syllables). */
function normalized(password: string): string {
  return password.normalize('NFC');
}

/** Refuses a password too short to resist guessing, or long enough to be a denial of service. */
export function checkNewPassword(password: string, field = 'new_password'): void {
  const length = [...normalized(password)].length;
  if (length < PASSWORD_MIN_CHARS || length > PASSWORD_MAX_CHARS) {
    throw new BadRequestError(`a password has ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters`, {
      details: [{ field, message: `must have ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters` }],
    });
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = SCRYPT_PARAMS;
  const key = await scrypt(normalized(password), salt, KEY_BYTES, { N, r, p, maxmem: MAX_MEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether `password` is the one `stored` was made from; compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds on what a stored hash may ask for: a tampered row must not cost gigabytes.
  if (!Number.isInteger(Math.log2(N)) || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length === 0 || expected.length > 128) return false;
  const key = await scrypt(normalized(password), salt, expected.length, { N, r, p, maxmem: Math.max(MAX_MEM, 256 * N * r) });
  return timingSafeEqual(key, expected);
}

let decoy: Promise<string> | null = null;
/**
 * A hash of no one's password: a sign-in with an unknown email verifies against it, so it takes
 * as long as a wrong password for a known one and the timing does not say which emails exist.
 */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  return decoy;
}
