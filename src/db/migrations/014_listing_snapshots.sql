-- What the publisher's listing cache (src/publish/listing/) needs of a blog, saved so that the
-- first publish after a restart does not read every published post: the posts' ids, dates, tags
-- and title word counts, as of a position `seq` in the post_changes log. The cache replays the
-- log from there; a snapshot the log no longer reaches back to is ignored and replaced. Titles,
-- slugs and descriptions are not in it: they are read from the posts table for the few posts a
-- publish renders. A cache, never the truth: deleting every row only makes the next first
-- publish slower.
CREATE TABLE listing_snapshots (
  blog_id     TEXT PRIMARY KEY REFERENCES blogs(id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  data        BLOB NOT NULL,
  written_at  TEXT NOT NULL
);
