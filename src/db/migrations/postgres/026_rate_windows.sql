-- Rate limits counted across nodes (issue #32, docs/operations.md "PostgreSQL (preview)"): each
-- node adds what its limiters counted about once a second and reads back the window's total
-- (src/services/rateWindowSync.ts). `key` is a keyed hash, never an account id or email as such;
-- window times are milliseconds since the epoch, and a row is deleted once its window has ended.
-- UNLOGGED: the counts are worth no WAL; a crash or a failover forgets them, which errs on the
-- side of the customer, as a restart of one process does.
CREATE UNLOGGED TABLE rate_windows (
  scope         TEXT NOT NULL,
  key           TEXT NOT NULL,
  window_start  BIGINT NOT NULL,
  window_end    BIGINT NOT NULL,
  count         BIGINT NOT NULL,
  PRIMARY KEY (scope, key, window_start)
);
CREATE INDEX rate_windows_by_end ON rate_windows(window_end);
