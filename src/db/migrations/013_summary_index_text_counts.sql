-- The covering index of the publish pipeline's listing (migration 003) now holds text_counts too
-- (migration 005 added the column after it): the listing reads each post's counts for its reading
-- time, and without them in the index every summary read also read the table row, whose
-- Markdown and HTML overflow pages come first, which would slow down loading a large listing,
-- as the first publish after a restart does.
DROP INDEX posts_published_summary;
CREATE INDEX posts_published_summary ON posts (
  blog_id, status, published_at, id, slug, title, meta_description, og_image_url, tags, created_at, updated_at, text_counts
);
