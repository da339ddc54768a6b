-- Idempotency-Key on POST requests (src/services/idempotency.ts): the first answer to a key is
-- kept for 24 hours and replayed to retries that send the same request.
CREATE TABLE idempotency_keys (
  account_id     TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key            TEXT NOT NULL,
  -- SHA-256 of method, path, blog and body: a retry must be the same request.
  fingerprint    TEXT NOT NULL,
  -- 'pending' while the first request runs (until locked_until), then 'done' with its answer.
  state          TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  locked_until   TEXT,
  status         INTEGER,
  response_body  TEXT,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
