-- An Idempotency-Key record belongs to the API key that sent the first request, and a replay
-- goes only to that key (a replay answered before the handler must not hand another key of the
-- account what its own scopes would refuse). Answers carrying a secret shown only once (a new
-- API key, a webhook's signing secret) are kept without it: `withheld` names the field left out.
-- Records written before had no owner and could hold such secrets in full: they are dropped
-- (a retry of one of the last 24 hours' requests then runs again).
DROP TABLE idempotency_keys;
CREATE TABLE idempotency_keys (
  account_id     TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id     TEXT NOT NULL,
  key            TEXT NOT NULL,
  -- SHA-256 of method, path, blog and body: a retry must be the same request.
  fingerprint    TEXT NOT NULL,
  -- 'pending' while the first request runs (until locked_until), then 'done' with its answer.
  state          TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  locked_until   TEXT,
  status         INTEGER,
  response_body  TEXT,
  withheld       TEXT,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  PRIMARY KEY (account_id, api_key_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
