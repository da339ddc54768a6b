-- People's sign-in for the dashboard (docs/dashboard.md). A session is a server-side row named
-- by the SHA-256 of its cookie's secret: the secret itself is never stored, so a copy of the
-- database signs no one in. Gone with the account (ON DELETE CASCADE).
CREATE TABLE sessions (
  id            TEXT PRIMARY KEY,
  secret_hash   TEXT NOT NULL UNIQUE,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- Sent back as X-CSRF-Token on every cookie-authenticated write.
  csrf_token    TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  -- Written at most once an hour per session (sessions.ts), so reads do not become writes.
  last_used_at  TEXT NOT NULL,
  -- Slides: last use + 30 days.
  expires_at    TEXT NOT NULL,
  -- A short label from the User-Agent for the list of sessions (never used to decide anything).
  user_agent    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_by_account ON sessions(account_id, created_at);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

-- One-time sign-in links (`folio account login-link`, the first start): the SHA-256 of the token
-- only. `used_at` is set by the one atomic UPDATE that consumes a link.
CREATE TABLE login_links (
  token_hash    TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL,
  used_at       TEXT
);
CREATE INDEX login_links_by_expiry ON login_links(expires_at);

-- scrypt$N$r$p$salt$hash (docs/dashboard.md#passwords); NULL: no password, sign in with a link.
ALTER TABLE accounts ADD COLUMN password_hash TEXT;
