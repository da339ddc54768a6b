-- Preview links (docs/dashboard.md#preview-links-and-live-preview): anyone holding the URL reads
-- the post's current text until `expires_at`. Only the SHA-256 of the token is kept, so a copy
-- of the database (a backup) opens no preview; the links go with their post.
CREATE TABLE preview_links (
  token_hash  TEXT PRIMARY KEY,
  post_id     TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL
);
CREATE INDEX preview_links_by_post ON preview_links(post_id);
