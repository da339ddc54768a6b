-- Covering index for the publish pipeline's list of published posts (SiteRepo.publishedSummaries).
-- Without it every publish would read each post's row, whose Markdown and HTML bodies sit in
-- overflow pages before the tag and date columns.
CREATE INDEX posts_published_summary ON posts (
  blog_id, status, published_at, id, slug, title, meta_description, og_image_url, tags, created_at, updated_at
);
