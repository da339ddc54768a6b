-- Word and character counts of a post's prose (title plus Markdown without code, URLs and tags),
-- as JSON; derived from title and content_md on every write (PostsRepo). Rendering a post page
-- needs them for the page language and the reading time; counting 10,000 posts' text again on
-- every full rebuild was a third of the render time. NULL for rows written before this
-- migration: those are counted when rendered.
ALTER TABLE posts ADD COLUMN text_counts TEXT;
