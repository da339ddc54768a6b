/**
 * The post being edited, as the server last answered it: its slug, its ETag (sent as If-Match
 * with every change, so nobody's edit is overwritten unseen) and the fields saved. The only
 * module of the editor that calls the posts operations.
 */
import { ApiError, api } from '../lib/api.js';
import type { SaveOutcome } from './autosave.js';
import { createBody, emptyFields, fieldsOf, type LoadedPost, type PostFields, updateBody } from './postFields.js';

export type PostStatus = LoadedPost['status'];

export class PostSession {
  slug: string | null = null;
  etag: string | null = null;
  status: PostStatus | null = null;
  scheduledAt: string | null = null;
  /** The fields as the server has them: a save sends what differs. */
  base: PostFields = emptyFields();

  constructor(readonly blogId: string) {}

  get path(): string {
    if (this.slug === null) throw new Error('the post is not saved yet');
    return `/posts/${encodeURIComponent(this.slug)}`;
  }

  /** Reads the post and takes it as the version being edited. */
  async load(slug: string): Promise<PostFields> {
    const post = await this.read(slug);
    this.adopt(post.body, post.etag);
    return this.base;
  }

  /** The server's current version, without taking it (to compare after a conflict). */
  async read(slug = this.slug ?? ''): Promise<{ body: LoadedPost; etag: string | null }> {
    const answer = await api<LoadedPost>(`/posts/${encodeURIComponent(slug)}`, { blogId: this.blogId });
    return { body: answer.body, etag: answer.etag };
  }

  adopt(post: LoadedPost, etag: string | null): void {
    this.slug = post.slug;
    this.etag = etag;
    this.status = post.status;
    this.scheduledAt = post.scheduled_at;
    this.base = fieldsOf(post);
  }

  /** Creates the post on its first save, else sends what changed with If-Match; 412 is `conflict`. */
  async save(fields: PostFields): Promise<SaveOutcome> {
    if (this.slug === null) {
      const created = await api<{ slug: string }>('/posts', { method: 'POST', blogId: this.blogId, body: createBody(fields) });
      await this.load(created.body.slug);
      return 'saved';
    }
    const body = updateBody(fields, this.base);
    if (Object.keys(body).length === 0) return 'saved';
    try {
      const answer = await api<{ slug: string; status: PostStatus }>(this.path, { method: 'PUT', blogId: this.blogId, body, ifMatch: this.etag ?? undefined });
      this.slug = answer.body.slug;
      this.etag = answer.etag;
      this.status = answer.body.status;
      this.base = { ...fields, slug: answer.body.slug };
      return 'saved';
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) return 'conflict';
      throw error;
    }
  }

  /** A status change: the answer has no ETag, so the post is read again for the next If-Match. */
  async transition(operation: 'publish' | 'unpublish' | 'schedule', body?: unknown): Promise<{ url?: string }> {
    const answer = await api<{ url?: string }>(`${this.path}/${operation}`, { method: 'POST', blogId: this.blogId, body });
    const fresh = await this.read();
    this.etag = fresh.etag;
    this.status = fresh.body.status;
    this.scheduledAt = fresh.body.scheduled_at;
    return answer.body;
  }

  async remove(): Promise<void> {
    await api(this.path, { method: 'DELETE', blogId: this.blogId, ifMatch: this.etag ?? undefined });
  }

  /** Restores a revision (If-Match: the version loaded) and takes the answer as the version edited. */
  async restore(revisionId: string): Promise<PostFields> {
    await api(`${this.path}/revisions/${encodeURIComponent(revisionId)}/restore`, { method: 'POST', blogId: this.blogId, ifMatch: this.etag ?? undefined });
    return this.load(this.slug ?? '');
  }
}
