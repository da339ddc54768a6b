import type { Revision, RevisionSummary } from '../../db/postRevisionsRepo.js';
import { fromMediaRefs } from '../../media/mediaRefs.js';

/** The revision JSON of GET /v1/posts/:slug/revisions and /revisions/:revisionId. */
export function presentRevisionSummary(revision: RevisionSummary) {
  return { id: revision.id, created_at: revision.createdAt, title: revision.title, content_length: revision.contentLength };
}

/** `origin`: the blog's current origin, which its own media URLs are answered on (as presentPost does). */
export function presentRevision(revision: Revision, origin: string) {
  return { id: revision.id, created_at: revision.createdAt, title: revision.title, content_md: fromMediaRefs(revision.contentMd, origin) };
}
