-- Reader analytics (docs/analytics.md): daily aggregates only, never a hit or an address.
-- Every row hangs off its blog or post with ON DELETE CASCADE, so the transactions that delete
-- a post, a blog or an account delete its counts without knowing about them.

-- The blog's row counts every counted load on its host (post pages and the home page), and its
-- visitors once per day however many pages they read.
CREATE TABLE analytics_blog_days (
  blog_id   TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  day       TEXT NOT NULL, -- YYYY-MM-DD, UTC
  views     INTEGER NOT NULL DEFAULT 0,
  visitors  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (blog_id, day)
) WITHOUT ROWID;

CREATE TABLE analytics_post_days (
  post_id   TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  blog_id   TEXT NOT NULL,
  day       TEXT NOT NULL,
  views     INTEGER NOT NULL DEFAULT 0,
  visitors  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (post_id, day)
) WITHOUT ROWID;
CREATE INDEX analytics_post_days_by_blog ON analytics_post_days(blog_id, day);

-- Referrer hosts (or a page address's ref/source/utm_source value), never full URLs.
CREATE TABLE analytics_blog_referrers (
  blog_id  TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  day      TEXT NOT NULL,
  host     TEXT NOT NULL,
  views    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (blog_id, day, host)
) WITHOUT ROWID;

CREATE TABLE analytics_post_referrers (
  post_id  TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  day      TEXT NOT NULL,
  host     TEXT NOT NULL,
  views    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (post_id, day, host)
) WITHOUT ROWID;

-- One random salt per UTC day for the visitor hash; deleted after 48 hours, so two days'
-- hashes can never be linked.
CREATE TABLE analytics_salts (
  day   TEXT PRIMARY KEY,
  salt  BLOB NOT NULL
) WITHOUT ROWID;
