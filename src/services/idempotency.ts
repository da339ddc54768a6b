/**
 * Safe retries (Idempotency-Key on POST): the first request with a key runs and its answer is
 * kept for 24 hours; a retry with the same key and the same request gets that answer again
 * without the work being done twice. Keys belong to an account. A retry that arrives while the
 * first is still running waits for it. Only successes are kept: a request that failed did
 * nothing (every write is one transaction), so its retry simply runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/database.js';
import type { IdempotencyRepo } from '../db/idempotencyRepo.js';
import { writeTransaction } from '../db/writeTransaction.js';
import { isoNow, type Clock } from '../clock.js';
import { ConflictError, IdempotencyKeyReusedError } from '../errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key; past it (a crash), a retry runs the request itself. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

export type IdempotencyStart = { kind: 'run' } | { kind: 'replay'; status: number; body: unknown };

export interface IdempotencyOptions {
  /** How long a retry waits for the first request to finish before giving up with 409. */
  waitMs?: number;
  pollMs?: number;
}

export class IdempotencyService {
  constructor(
    private readonly db: Db,
    private readonly repo: IdempotencyRepo,
    private readonly clock: Clock,
    private readonly options: IdempotencyOptions = {},
  ) {}

  /** `fingerprint` identifies the request (method, path, blog, body). */
  async start(accountId: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    const deadline = Date.now() + (this.options.waitMs ?? 30_000);
    for (;;) {
      const outcome = await writeTransaction(this.db, (): IdempotencyStart | { kind: 'wait' } => {
        const now = this.clock.now();
        const nowIso = now.toISOString();
        this.repo.purgeExpired(nowIso);
        const record = this.repo.find(accountId, key);
        if (record && record.expiresAt > nowIso) {
          if (record.fingerprint !== fingerprint) {
            throw new IdempotencyKeyReusedError('this Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request');
          }
          if (record.state === 'done') return { kind: 'replay', status: record.status!, body: JSON.parse(record.responseBody!) as unknown };
          if (record.lockedUntil! > nowIso) return { kind: 'wait' };
        }
        this.repo.claim({
          accountId,
          key,
          fingerprint,
          lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS).toISOString(),
          createdAt: isoNow(this.clock),
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        });
        return { kind: 'run' };
      });
      if (outcome.kind !== 'wait') return outcome;
      if (Date.now() >= deadline) throw new ConflictError('a request with this Idempotency-Key is still running; retry it later', { headers: { 'Retry-After': '5' } });
      await sleep(this.options.pollMs ?? 20);
    }
  }

  /** The request succeeded: its answer is what retries get. */
  async succeeded(accountId: string, key: string, status: number, body: unknown): Promise<void> {
    const text = JSON.stringify(body ?? null);
    await writeTransaction(this.db, () => this.repo.complete(accountId, key, status, text));
  }

  /** The request failed: the key is free for a retry. */
  async failed(accountId: string, key: string): Promise<void> {
    await writeTransaction(this.db, () => this.repo.release(accountId, key));
  }
}
