-- Webhooks (src/webhooks, src/services/webhooks.ts). A change writes one delivery row per
-- subscribed webhook in the change's own transaction, so no event is lost to a crash; the
-- dispatcher sends due rows and retries them with backoff for 24 hours.
CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,
  blog_id     TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  url         TEXT NOT NULL,
  -- JSON array of event types.
  events      TEXT NOT NULL,
  -- Standard Webhooks signing secret (`whsec_` + base64).
  secret      TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX webhooks_by_blog ON webhooks(blog_id, created_at);

CREATE TABLE webhook_deliveries (
  -- Also the `webhook-id` header: the same on every attempt, so receivers can drop duplicates.
  id               TEXT PRIMARY KEY,
  webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_type       TEXT NOT NULL,
  -- The body sent, as it will be signed.
  payload          TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT NOT NULL,
  created_at       TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, created_at);

CREATE TABLE webhook_attempts (
  delivery_id    TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt        INTEGER NOT NULL,
  at             TEXT NOT NULL,
  -- HTTP status of the answer; NULL when there was none (refused, timed out, blocked address).
  response_code  INTEGER,
  duration_ms    INTEGER NOT NULL,
  error          TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
