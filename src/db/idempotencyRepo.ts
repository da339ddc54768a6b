import type { Db } from './database.js';

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  fingerprint: string;
  state: 'pending' | 'done';
  lockedUntil: string | null;
  status: number | null;
  responseBody: string | null;
  createdAt: string;
  expiresAt: string;
}

interface Row {
  account_id: string;
  key: string;
  fingerprint: string;
  state: 'pending' | 'done';
  locked_until: string | null;
  status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

const toRecord = (row: Row): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  state: row.state,
  lockedUntil: row.locked_until,
  status: row.status,
  responseBody: row.response_body,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** The `idempotency_keys` table (migration 010). */
export class IdempotencyRepo {
  private readonly findStmt;
  private readonly upsertStmt;
  private readonly completeStmt;
  private readonly deleteStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string, string], Row>('SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, locked_until, status, response_body, created_at, expires_at)
       VALUES (@accountId, @key, @fingerprint, 'pending', @lockedUntil, NULL, NULL, @createdAt, @expiresAt)
       ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending', locked_until = excluded.locked_until,
         status = NULL, response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    );
    this.completeStmt = db.prepare("UPDATE idempotency_keys SET state = 'done', locked_until = NULL, status = ?, response_body = ? WHERE account_id = ? AND key = ? AND state = 'pending'");
    this.deleteStmt = db.prepare("DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND state = 'pending'");
    this.purgeStmt = db.prepare('DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT 100)');
  }

  find(accountId: string, key: string): IdempotencyRecord | null {
    const row = this.findStmt.get(accountId, key);
    return row ? toRecord(row) : null;
  }

  /** Claims the key for a request about to run (replacing an expired or abandoned record). */
  claim(record: { accountId: string; key: string; fingerprint: string; lockedUntil: string; createdAt: string; expiresAt: string }): void {
    this.upsertStmt.run(record);
  }

  complete(accountId: string, key: string, status: number, responseBody: string): void {
    this.completeStmt.run(status, responseBody, accountId, key);
  }

  /** Gives up a claim: the request failed, a retry may run it again. */
  release(accountId: string, key: string): void {
    this.deleteStmt.run(accountId, key);
  }

  /** Removes up to 100 expired records. */
  purgeExpired(now: string): void {
    this.purgeStmt.run(now);
  }
}
