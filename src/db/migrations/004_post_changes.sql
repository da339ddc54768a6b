-- A log of changes to published posts, written by triggers in the same transaction as the
-- change itself, so no code path (service, CLI, another process) can change what a blog's
-- site lists without it showing here. The publisher's listing cache (src/publish/listing/listingCache.ts)
-- replays it to keep its in-memory list of a blog's published posts current at the cost of
-- the change, instead of re-reading thousands of rows for every publish. Old rows are pruned.
CREATE TABLE post_changes (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  blog_id  TEXT NOT NULL,
  post_id  TEXT NOT NULL
);
CREATE INDEX post_changes_by_blog ON post_changes(blog_id, seq);

CREATE TRIGGER post_changes_insert AFTER INSERT ON posts WHEN NEW.status = 'published'
BEGIN
  INSERT INTO post_changes (blog_id, post_id) VALUES (NEW.blog_id, NEW.id);
END;

CREATE TRIGGER post_changes_update AFTER UPDATE ON posts WHEN OLD.status = 'published' OR NEW.status = 'published'
BEGIN
  INSERT INTO post_changes (blog_id, post_id) VALUES (NEW.blog_id, NEW.id);
END;

CREATE TRIGGER post_changes_delete AFTER DELETE ON posts WHEN OLD.status = 'published'
BEGIN
  INSERT INTO post_changes (blog_id, post_id) VALUES (OLD.blog_id, OLD.id);
END;
