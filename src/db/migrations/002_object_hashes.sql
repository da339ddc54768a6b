-- What the publisher last wrote for each object, so unchanged objects are not uploaded again.
-- Only an optimisation: `folio site verify` compares against the store itself.
CREATE TABLE object_hashes (
  blog_id  TEXT NOT NULL,
  key      TEXT NOT NULL,
  hash     TEXT NOT NULL,
  PRIMARY KEY (blog_id, key)
) WITHOUT ROWID;
