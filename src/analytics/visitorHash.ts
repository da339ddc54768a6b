/**
 * Daily visitors without storing who they are (the method Plausible documents): a hash of a
 * salt that is new every UTC day, the blog, the client address and the user agent. The salt is
 * deleted after 48 hours, after which no hash can be computed again or linked to another day's.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';

/** Where salts live (SQLite: every process of a data dir hashes with the same salt). */
export interface SaltStore {
  /** The day's salt: `fresh` when the day has none yet, else the one stored first. */
  saltFor(day: string, fresh: Buffer): Promise<Buffer>;
  /** Deletes the salts of days before `day`. */
  deleteSaltsBefore(day: string): Promise<void>;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The day `days` before `day` (both `YYYY-MM-DD`). */
export function dayBefore(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) - days * 86_400_000));
}

export class DailySalts {
  private current: { day: string; salt: Buffer } | null = null;

  constructor(
    private readonly store: SaltStore,
    private readonly clock: Clock,
  ) {}

  /** Today's salt, read or made once a day; yesterday's and older are deleted then. */
  async today(): Promise<{ day: string; salt: Buffer }> {
    const day = utcDay(this.clock.now());
    if (this.current?.day === day) return this.current;
    const salt = await this.store.saltFor(day, randomBytes(32));
    // Yesterday's salt stays for the 48 hours the method promises; anything older goes now.
    await this.store.deleteSaltsBefore(dayBefore(day, 1));
    this.current = { day, salt };
    return this.current;
  }
}

/** 16 bytes of SHA-256 (as base64url): enough to tell a day's visitors apart, kept in memory only. */
export function visitorHash(salt: Buffer, blogId: string, address: string, userAgent: string): string {
  return createHash('sha256').update(salt).update(`\0${blogId}\0${address}\0${userAgent}`).digest('base64url').slice(0, 22);
}
