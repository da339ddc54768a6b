-- Folio's first schema. Released migrations are never edited; add 002_….sql instead.
-- Timestamps are ISO 8601 UTC strings with milliseconds, so text order is time order.

CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  email       TEXT,
  plan        TEXT NOT NULL CHECK (plan IN ('free', 'starter', 'creator', 'scale', 'enterprise')),
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE blogs (
  id            TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  slug          TEXT NOT NULL UNIQUE,
  name          TEXT NOT NULL,
  description   TEXT NOT NULL DEFAULT '',
  theme_config  TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX blogs_by_account ON blogs(account_id, created_at);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL for account keys; a blog's keys die with the blog.
  blog_id       TEXT REFERENCES blogs(id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  key_hash      TEXT NOT NULL UNIQUE,
  key_prefix    TEXT NOT NULL,
  scopes        TEXT NOT NULL DEFAULT '["*"]',
  last_used_at  TEXT,
  created_at    TEXT NOT NULL,
  revoked_at    TEXT
);
CREATE INDEX api_keys_by_blog ON api_keys(blog_id, created_at);

CREATE TABLE posts (
  id                TEXT PRIMARY KEY,
  blog_id           TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  title             TEXT NOT NULL,
  slug              TEXT NOT NULL,
  content_md        TEXT NOT NULL,
  content_html      TEXT NOT NULL,
  meta_description  TEXT NOT NULL,
  -- 1 once the author supplied meta.description; until then it follows the content.
  meta_explicit     INTEGER NOT NULL DEFAULT 0 CHECK (meta_explicit IN (0, 1)),
  og_image_url      TEXT,
  tags              TEXT NOT NULL DEFAULT '[]',
  status            TEXT NOT NULL CHECK (status IN ('draft', 'published', 'scheduled')),
  published_at      TEXT,
  scheduled_at      TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  UNIQUE (blog_id, slug)
);
CREATE INDEX posts_by_blog_created ON posts(blog_id, created_at);
CREATE INDEX posts_by_blog_published ON posts(blog_id, status, published_at);
CREATE INDEX posts_due ON posts(scheduled_at) WHERE status = 'scheduled';

-- One row per (post, tag) so tag filters and tag pages use an index, not a JSON scan.
CREATE TABLE post_tags (
  post_id  TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  blog_id  TEXT NOT NULL,
  tag      TEXT NOT NULL,
  PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tags_by_blog_tag ON post_tags(blog_id, tag);

-- Old addresses of renamed published posts; they redirect to the post's current slug.
CREATE TABLE post_redirects (
  blog_id     TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  old_slug    TEXT NOT NULL,
  post_id     TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (blog_id, old_slug)
);
CREATE INDEX post_redirects_by_post ON post_redirects(post_id);

CREATE TABLE domains (
  blog_id          TEXT PRIMARY KEY REFERENCES blogs(id) ON DELETE CASCADE,
  hostname         TEXT NOT NULL UNIQUE,
  status           TEXT NOT NULL CHECK (status IN ('pending_verification', 'active')),
  created_at       TEXT NOT NULL,
  verified_at      TEXT,
  last_checked_at  TEXT,
  last_error       TEXT
);

-- Durable publish jobs (docs/publishing.md). No foreign key to blogs: the job that
-- deletes a blog's objects must outlive the blog row.
CREATE TABLE publish_jobs (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  blog_id     TEXT NOT NULL,
  blog_slug   TEXT NOT NULL,
  kind        TEXT NOT NULL,
  payload     TEXT NOT NULL DEFAULT '{}',
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  run_after   TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX publish_jobs_due ON publish_jobs(status, run_after);
CREATE INDEX publish_jobs_by_blog ON publish_jobs(blog_id, status);
