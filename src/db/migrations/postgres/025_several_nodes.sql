-- Several Folio nodes on one database (issue #32, docs/operations.md "Several nodes").

-- 1. What the in-memory lookups (a key by its hash, a blog by id) read changes: every node hears
--    it on the channel `folio_changes` when the change commits (db/sql/postgresChanges.ts), and
--    empties those caches. NOTIFY is transactional: a rolled-back change says nothing.
CREATE FUNCTION notify_folio_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('folio_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
CREATE TRIGGER accounts_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION notify_folio_change();
CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_folio_change();
CREATE TRIGGER blogs_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON blogs FOR EACH STATEMENT EXECUTE FUNCTION notify_folio_change();
CREATE TRIGGER domains_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON domains FOR EACH STATEMENT EXECUTE FUNCTION notify_folio_change();

-- 2. The listing caches replay post_changes from a position (publish/listing/listingCache.ts),
--    which is only sound if changes commit in the order of their seq. SQLite's single writer
--    gives that; here writers that log a change take turns from the moment they draw a seq to
--    their commit. Only changes to published posts log one; the rest of the database is free.
CREATE OR REPLACE FUNCTION log_post_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status = 'published' THEN
      -- Any constant of Folio's own: the lock is taken here alone.
      PERFORM pg_advisory_xact_lock(77272575862529);
      INSERT INTO post_changes (blog_id, post_id) VALUES (OLD.blog_id, OLD.id);
    END IF;
    RETURN OLD;
  END IF;
  IF NEW.status = 'published' OR (TG_OP = 'UPDATE' AND OLD.status = 'published') THEN
    PERFORM pg_advisory_xact_lock(77272575862529);
    INSERT INTO post_changes (blog_id, post_id) VALUES (NEW.blog_id, NEW.id);
  END IF;
  RETURN NEW;
END;
$$;

-- 3. Which node holds a blog: its jobs, and the background writes of its search indexes, run
--    on that node alone until the lease expires (publish/jobs/blogLeases.ts). A blog is named by
--    its slug, the prefix of its objects, which never changes. Times are the database's, so the
--    nodes' clocks need not agree.
CREATE TABLE blog_leases (
  blog        TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  expires_at  TIMESTAMPTZ NOT NULL
);
