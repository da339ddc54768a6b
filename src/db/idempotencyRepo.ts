import type { SqlWriter } from './sql/sqlClient.js';

/** Who a record belongs to: the API key that sent the first request, and its account. */
export interface IdempotencyOwner {
  accountId: string;
  keyId: string;
}

export interface IdempotencyRecord {
  accountId: string;
  keyId: string;
  key: string;
  fingerprint: string;
  state: 'pending' | 'done';
  lockedUntil: string | null;
  status: number | null;
  responseBody: string | null;
  /** The field of the answer left out of `responseBody` (a secret shown only once), or null. */
  withheld: string | null;
  createdAt: string;
  expiresAt: string;
}

interface Row {
  account_id: string;
  api_key_id: string;
  key: string;
  fingerprint: string;
  state: 'pending' | 'done';
  locked_until: string | null;
  status: number | null;
  response_body: string | null;
  withheld: string | null;
  created_at: string;
  expires_at: string;
}

const toRecord = (row: Row): IdempotencyRecord => ({
  accountId: row.account_id,
  keyId: row.api_key_id,
  key: row.key,
  fingerprint: row.fingerprint,
  state: row.state,
  lockedUntil: row.locked_until,
  status: row.status,
  responseBody: row.response_body,
  withheld: row.withheld,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** The `idempotency_keys` table (migrations 010, 015). */
export class IdempotencyRepo {
  constructor(private readonly sql: SqlWriter) {}

  /** The same queries inside a transaction. */
  in(tx: SqlWriter): IdempotencyRepo {
    return new IdempotencyRepo(tx);
  }

  async find(owner: IdempotencyOwner, key: string): Promise<IdempotencyRecord | null> {
    const row = await this.sql.get<Row>('SELECT * FROM idempotency_keys WHERE account_id = ? AND api_key_id = ? AND key = ?', [
      owner.accountId,
      owner.keyId,
      key,
    ]);
    return row ? toRecord(row) : null;
  }

  /** Claims the key for a request about to run (replacing an expired or abandoned record). */
  async claim(owner: IdempotencyOwner, record: { key: string; fingerprint: string; lockedUntil: string; createdAt: string; expiresAt: string }): Promise<void> {
    await this.sql.run(
      `INSERT INTO idempotency_keys (account_id, api_key_id, key, fingerprint, state, locked_until, status, response_body, withheld, created_at, expires_at)
       VALUES (?, ?, ?, ?, 'pending', ?, NULL, NULL, NULL, ?, ?)
       ON CONFLICT (account_id, api_key_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending', locked_until = excluded.locked_until,
         status = NULL, response_body = NULL, withheld = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [owner.accountId, owner.keyId, record.key, record.fingerprint, record.lockedUntil, record.createdAt, record.expiresAt],
    );
  }

  /** `responseBody` never holds a secret: `withheld` names the field that was left out. */
  async complete(owner: IdempotencyOwner, key: string, status: number, responseBody: string, withheld: string | null): Promise<void> {
    await this.sql.run(
      "UPDATE idempotency_keys SET state = 'done', locked_until = NULL, status = ?, response_body = ?, withheld = ? WHERE account_id = ? AND api_key_id = ? AND key = ? AND state = 'pending'",
      [status, responseBody, withheld, owner.accountId, owner.keyId, key],
    );
  }

  /** Gives up a claim: the request failed, a retry may run it again. */
  async release(owner: IdempotencyOwner, key: string): Promise<void> {
    await this.sql.run("DELETE FROM idempotency_keys WHERE account_id = ? AND api_key_id = ? AND key = ? AND state = 'pending'", [
      owner.accountId,
      owner.keyId,
      key,
    ]);
  }

  /** Removes up to 100 expired records (a bounded delete on every claim keeps the table small). */
  async purgeExpired(now: string): Promise<void> {
    await this.sql.run(
      `DELETE FROM idempotency_keys WHERE (account_id, api_key_id, key) IN
         (SELECT account_id, api_key_id, key FROM idempotency_keys WHERE expires_at <= ? LIMIT 100)`,
      [now],
    );
  }
}
