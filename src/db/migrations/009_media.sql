-- Uploaded images (POST /v1/media, src/services/media.ts). One row per distinct image per blog:
-- `hash` names the stored objects (src/media/mediaNames.ts), so uploading the same bytes again
-- finds this row instead of storing a copy.
CREATE TABLE media (
  id            TEXT PRIMARY KEY,
  blog_id       TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  hash          TEXT NOT NULL,
  format        TEXT NOT NULL CHECK (format IN ('jpeg', 'png', 'webp', 'gif', 'avif')),
  width         INTEGER NOT NULL,
  height        INTEGER NOT NULL,
  -- Size of the upload as sent, and of every object stored for it.
  bytes         INTEGER NOT NULL,
  stored_bytes  INTEGER NOT NULL,
  created_at    TEXT NOT NULL,
  UNIQUE (blog_id, hash)
);
CREATE INDEX media_by_blog_created ON media(blog_id, created_at, id);

-- Which posts name which images (in their Markdown or og_image), kept by the post writes: an
-- image a published or scheduled post uses cannot be deleted without scanning every post.
CREATE TABLE post_media (
  post_id  TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  blog_id  TEXT NOT NULL,
  hash     TEXT NOT NULL,
  PRIMARY KEY (post_id, hash)
);
CREATE INDEX post_media_by_hash ON post_media(blog_id, hash);
