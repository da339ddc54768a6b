/**
 * Safe retries (Idempotency-Key on POST): the first request with a key runs and its answer is
 * kept for 24 hours; a retry with the same key and the same request gets that answer again
 * without the work being done twice. Keys belong to the API key that sent them: another key of
 * the account using the same string runs its request as its own (with its own scopes), never
 * receiving the first key's answer. A retry that arrives while the first is still running waits
 * for it. Only successes are kept: a request that failed did nothing (every write is one
 * transaction), so its retry simply runs.
 *
 * A secret shown only once (a new API key, a webhook's signing secret) is never stored: the
 * answer is kept without it, and a retry of such a request gets a 409 naming what the first
 * request created instead of a second secret or a copy of the first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IdempotencyOwner, IdempotencyRepo } from '../db/idempotencyRepo.js';
import type { SqlClient } from '../db/sql/sqlClient.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { ConflictError, IdempotencyKeyReusedError } from '../domain/errors.js';

export type { IdempotencyOwner };

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key; past it (a crash), a retry runs the request itself. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

export type IdempotencyStart = { kind: 'run' } | { kind: 'replay'; status: number; body: unknown };

/** The field of an answer holding a secret shown only once, and what the answer created. */
export interface SecretField {
  field: string;
  /** `API key`, `webhook`: named in the 409 a retry gets. */
  resource: string;
}

export interface IdempotencyDeps {
  sql: SqlClient;
  repo: IdempotencyRepo;
  clock: Clock;
  /** How long a retry waits for the first request to finish before giving up with 409. */
  waitMs?: number;
  pollMs?: number;
}

export class IdempotencyService {
  constructor(private readonly deps: IdempotencyDeps) {}

  /** `fingerprint` identifies the request (method, path, blog, body). */
  async start(owner: IdempotencyOwner, key: string, fingerprint: string, secret?: SecretField): Promise<IdempotencyStart> {
    const deadline = Date.now() + (this.deps.waitMs ?? 30_000);
    for (;;) {
      const outcome = await this.deps.sql.transaction(async (tx): Promise<IdempotencyStart | { kind: 'wait' }> => {
        const repo = this.deps.repo.in(tx);
        const now = this.deps.clock.now();
        const nowIso = now.toISOString();
        await repo.purgeExpired(nowIso);
        const record = await repo.find(owner, key);
        if (record && record.expiresAt > nowIso) {
          if (record.fingerprint !== fingerprint) {
            throw new IdempotencyKeyReusedError('this Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request');
          }
          if (record.state === 'done') {
            const body = JSON.parse(record.responseBody!) as unknown;
            if (record.withheld !== null) throw withheldAnswer(body, record.withheld, secret?.resource);
            return { kind: 'replay', status: record.status!, body };
          }
          if (record.lockedUntil! > nowIso) return { kind: 'wait' };
        }
        await repo.claim(owner, {
          key,
          fingerprint,
          lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS).toISOString(),
          createdAt: isoNow(this.deps.clock),
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        });
        return { kind: 'run' };
      });
      if (outcome.kind !== 'wait') return outcome;
      if (Date.now() >= deadline)
        throw new ConflictError('a request with this Idempotency-Key is still running; retry it later', { headers: { 'Retry-After': '5' } });
      await sleep(this.deps.pollMs ?? 20);
    }
  }

  /** The request succeeded: its answer, without `secret.field`, is what retries get. */
  async succeeded(owner: IdempotencyOwner, key: string, status: number, body: unknown, secret?: SecretField): Promise<void> {
    let kept = body ?? null;
    let withheld: string | null = null;
    if (secret && typeof kept === 'object' && kept !== null && secret.field in kept) {
      const { [secret.field]: _secret, ...rest } = kept as Record<string, unknown>;
      kept = rest;
      withheld = secret.field;
    }
    const text = JSON.stringify(kept);
    await this.deps.repo.complete(owner, key, status, text, withheld);
  }

  /** The request failed: the key is free for a retry. */
  async failed(owner: IdempotencyOwner, key: string): Promise<void> {
    await this.deps.repo.release(owner, key);
  }
}

/** The 409 for a retry whose first answer held a secret that was not kept. */
function withheldAnswer(body: unknown, field: string, resource = 'resource'): ConflictError {
  const id = typeof body === 'object' && body !== null && typeof (body as { id?: unknown }).id === 'string' ? ` ${(body as { id: string }).id}` : '';
  return new ConflictError(
    `the first request with this Idempotency-Key already created ${resource}${id}; its "${field}" is shown only in that first answer and is not kept for retries. ` +
      `If that answer was lost, delete ${resource}${id} and create a new one with a new Idempotency-Key`,
  );
}
