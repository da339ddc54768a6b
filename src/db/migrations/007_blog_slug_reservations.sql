-- A deleted blog's slug stays reserved until its published objects and search index are gone
-- from the store: the blog's site_delete job removes the row when it has finished. Until then
-- no new blog can take the slug, so nothing written for the old blog is ever served or searched
-- under the new one, whatever the timing, a crash or a store outage in between.
CREATE TABLE retired_blog_slugs (
  slug        TEXT PRIMARY KEY,
  blog_id     TEXT NOT NULL,
  retired_at  TEXT NOT NULL
);

-- Blogs deleted before this migration whose objects are not removed yet keep their slug too.
INSERT OR IGNORE INTO retired_blog_slugs (slug, blog_id, retired_at)
  SELECT blog_slug, blog_id, MIN(created_at) FROM publish_jobs
   WHERE kind = 'site_delete' AND status = 'pending' AND blog_slug NOT IN (SELECT slug FROM blogs)
   GROUP BY blog_slug;
