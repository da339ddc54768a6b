-- The history of a post's title and Markdown (docs/api-behaviour.md#revisions): written in the
-- transaction of the change it records, pruned in the same transaction, gone with the post.
-- `content_md` is last so that a listing, which reads only the small columns before it, never
-- loads a megabyte of Markdown from the row's overflow pages.
CREATE TABLE post_revisions (
  -- Insertion order, newest last: ordering and pruning use it, never the timestamps.
  seq             INTEGER PRIMARY KEY,
  -- The public id (a UUID, like every id of the API).
  id              TEXT NOT NULL UNIQUE,
  post_id         TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  -- The API key whose edits it holds (edits coalesce only within one key); NULL when no key wrote it.
  key_id          TEXT,
  -- The first change it holds: later changes coalesce into it for five minutes from then.
  opened_at       TEXT NOT NULL,
  -- When its text was written (the last change it holds): the `created_at` the API answers.
  created_at      TEXT NOT NULL,
  -- 1 once nothing may coalesce into it: the post was published with this text, or a restore wrote it.
  sealed          INTEGER NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1)),
  title           TEXT NOT NULL,
  -- UTF-8 bytes of content_md, so a listing can show the size without reading the text.
  content_length  INTEGER NOT NULL,
  content_md      TEXT NOT NULL
);
CREATE INDEX post_revisions_by_post ON post_revisions(post_id, seq);
