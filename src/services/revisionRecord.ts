/**
 * How a change of a post's title or Markdown becomes a revision (docs/api-behaviour.md#revisions).
 * Called inside the change's own write transaction, so a revision is never half-written, never
 * lost, and never kept for a change that rolled back.
 */
import { randomUUID } from 'node:crypto';
import type { PostRevisionsRepo } from '../db/postRevisionsRepo.js';
import type { Post } from '../domain/post.js';

/** Continuous editing by one key keeps one revision per this long (counted from its first change). */
export const COALESCE_WINDOW_MS = 5 * 60 * 1000;
/** Every post keeps at least its newest revisions up to this many. */
export const KEEP_NEWEST = 50;
/** Beyond the newest, the last revision of each UTC day without one among them, on this many of the most recent such days. */
export const KEEP_DAILY = 30;

/** Who makes a change of a post's text, and how. */
export interface RevisionSource {
  /** The API key of the request; null (no key: an import) never coalesces. */
  keyId: string | null;
  /** A restore always writes a new revision, which nothing coalesces into later. */
  restore?: boolean;
}

const NO_KEY: RevisionSource = { keyId: null };

/**
 * Records `post` (as just written) against `before` (null: created), through `repo` bound to
 * the change's transaction. A change of title or Markdown writes a revision, or coalesces into
 * the newest one: same key, within the window of its first change, not sealed. A post going
 * live seals its newest revision, so the text it was published with is kept whatever is edited
 * next.
 */
export async function recordRevision(repo: PostRevisionsRepo, post: Post, before: Post | null, now: string, source: RevisionSource = NO_KEY): Promise<void> {
  const goesLive = post.status === 'published' && before?.status !== 'published';
  const textChanged = before === null || before.title !== post.title || before.contentMd !== post.contentMd;
  if (textChanged || source.restore) {
    const head = await repo.newest(post.id);
    if (head === null && before !== null) {
      // Written before revisions existed: its text until now becomes its first revision.
      await repo.insert({
        id: randomUUID(),
        postId: post.id,
        keyId: null,
        createdAt: before.updatedAt,
        sealed: true,
        title: before.title,
        contentMd: before.contentMd,
      });
    }
    // The change that puts the post live starts a revision of its own, as a restore does; so
    // does one whose clock reads before the window opened (the clock was set back).
    const age = head === null ? -1 : Date.parse(now) - Date.parse(head.openedAt);
    const coalesces =
      !source.restore &&
      !goesLive &&
      head !== null &&
      !head.sealed &&
      source.keyId !== null &&
      head.keyId === source.keyId &&
      age >= 0 &&
      age < COALESCE_WINDOW_MS;
    if (coalesces) await repo.replace(head.seq, { createdAt: now, title: post.title, contentMd: post.contentMd });
    else {
      const sealed = source.restore === true;
      await repo.insert({ id: randomUUID(), postId: post.id, keyId: source.keyId, createdAt: now, sealed, title: post.title, contentMd: post.contentMd });
      // A post without a revision before this change has two at most: nothing to prune (and a
      // push or an agent's burst of creates skips the pruning query).
      if (head !== null) await repo.prune(post.id, KEEP_NEWEST, KEEP_DAILY);
    }
  }
  if (goesLive) await repo.sealNewest(post.id);
}
