-- Word and character counts of a post's prose (title plus Markdown without code, URLs and tags),
-- as JSON; derived from title and content_md on every write (PostsRepo). Rendering a post page
-- needs them for the page language and the reading time; counting every post's text again on
-- every full rebuild would be a large part of the render. NULL for rows written before this
-- migration: those are counted when rendered.
ALTER TABLE posts ADD COLUMN text_counts TEXT;
