-- Public discovery across blogs (GET /v1/discover, docs/search.md#discovery): a blog is listed only
-- once its owner opts in, so every blog that existed before this migration stays out (and needs no
-- backfill: opting in queues a `discovery` job that indexes the blog's published posts).
ALTER TABLE blogs ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0 CHECK (discoverable IN (0, 1));

-- One row per indexed post; `id` is also its terms row's rowid, made from the post's published_at
-- (seconds × 2^20 + a free slot), so the terms in rowid order are the posts newest first and a
-- page of results is read from the front of the match without sorting every match. No foreign
-- keys: a deleted post or blog leaves its row for the job that follows the delete, and the query
-- joins the live posts and blogs rows, so what a reader sees follows each commit whatever the
-- index's lag.
CREATE TABLE discovery_posts (
  id            INTEGER PRIMARY KEY,
  post_id       TEXT NOT NULL UNIQUE,
  blog_id       TEXT NOT NULL,
  lang          TEXT NOT NULL CHECK (lang IN ('en', 'ko'))
);
CREATE INDEX discovery_posts_by_blog ON discovery_posts(blog_id);

-- The terms of each post as src/search/tokenize.ts makes them (Korean stems included), joined by
-- spaces; the `ascii` tokenizer splits on those spaces only, so FTS5 matches our exact terms.
-- `filters` holds the tokens of the tag and language filters (never matched by a query's words).
-- Contentless: the text is never read back, the answer comes from the posts row.
CREATE VIRTUAL TABLE discovery_terms USING fts5(
  title, tags, description, body, code, filters,
  content = '', contentless_delete = 1, tokenize = 'ascii'
);

-- What the query checks of each match, without reading the rows: a post's row with its Markdown
-- and HTML spills into overflow pages, and `status` comes after them; a blog's may hold 100 KB of
-- theme before `discoverable`.
CREATE INDEX posts_discovery_visible ON posts(id, status, blog_id);
CREATE INDEX blogs_discoverable ON blogs(id, discoverable);

CREATE TRIGGER discovery_posts_delete AFTER DELETE ON discovery_posts BEGIN
  DELETE FROM discovery_terms WHERE rowid = old.id;
END;
