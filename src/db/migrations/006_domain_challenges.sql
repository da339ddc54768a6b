-- Custom domains must prove control of the hostname (a TXT record holding a per-registration
-- token, besides the CNAME), and a pending registration no longer reserves the hostname: any
-- number of blogs may have the same hostname pending, the first to verify gets it, and pending
-- registrations expire (DomainsService.PENDING_TTL_MS, 7 days). Only one ACTIVE row per
-- hostname is allowed, by the partial unique index below; `blog_id` stays the primary key (one
-- domain per blog).
--
-- SQLite cannot drop a UNIQUE constraint in place, so the table is rebuilt. This runs inside the
-- migration's transaction with foreign_keys ON (that pragma cannot change in a transaction):
-- safe because no table references `domains`, so dropping the old table cascades nowhere.

CREATE TABLE domains_new (
  blog_id          TEXT PRIMARY KEY REFERENCES blogs(id) ON DELETE CASCADE,
  hostname         TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending_verification', 'active')),
  -- 32 lower-case hex characters (128 random bits); the TXT record must hold
  -- `folio-verification=<token>`.
  challenge_token  TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  -- When a pending registration lapses; NULL once active.
  expires_at       TEXT,
  verified_at      TEXT,
  last_checked_at  TEXT,
  last_error       TEXT,
  CHECK ((status = 'active') = (expires_at IS NULL))
);

-- Existing pending registrations get a token their owners have never seen, so their week starts
-- now rather than at created_at (which could already be more than a week ago).
INSERT INTO domains_new (blog_id, hostname, status, challenge_token, created_at, expires_at, verified_at, last_checked_at, last_error)
SELECT blog_id, hostname, status, lower(hex(randomblob(16))), created_at,
       CASE WHEN status = 'active' THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+7 days') END,
       verified_at, last_checked_at, last_error
  FROM domains;

DROP TABLE domains;
ALTER TABLE domains_new RENAME TO domains;

CREATE UNIQUE INDEX domains_active_hostname ON domains(hostname) WHERE status = 'active';
CREATE INDEX domains_by_hostname ON domains(hostname, status);
CREATE INDEX domains_pending_expiry ON domains(expires_at) WHERE status = 'pending_verification';
