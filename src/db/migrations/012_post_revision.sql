-- A counter every UPDATE of a post advances (postsRepo.update), so an ETag names the version of
-- the row without hashing its Markdown and HTML on every read, and two writes in the same
-- millisecond still get different tags.
ALTER TABLE posts ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
