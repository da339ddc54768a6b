-- Old addresses an author gives a post (`aliases`: a Hugo or Jekyll site's paths), each a
-- normalised absolute path on the blog (`/2019/05/old-post/`, `/2019/05/old-post.html`). While the
-- post is published each one is a redirect object in the store, like a renamed slug's old address.
CREATE TABLE post_aliases (
  blog_id     TEXT NOT NULL REFERENCES blogs(id) ON DELETE CASCADE,
  path        TEXT NOT NULL,
  post_id     TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (blog_id, path)
);
CREATE INDEX post_aliases_by_post ON post_aliases(post_id, position);
