import type { PostRevisionsRepo, Revision, RevisionSummary } from '../db/postRevisionsRepo.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { Post } from '../domain/post.js';
import { NotFoundError } from '../domain/errors.js';
import type { PostDeps } from './postDeps.js';
import type { PostPrecondition, PostsService } from './posts.js';

/** A post's history: its revisions listed and read, and a revision restored (revisionRecord.ts writes them). */
export class PostRevisionsService {
  constructor(
    private readonly deps: { revisions: PostRevisionsRepo } & Pick<PostDeps, 'posts'>,
    private readonly posts: PostsService,
  ) {}

  async list(blog: BlogWithDomain, slug: string, page: { page: number; perPage: number }): Promise<{ revisions: RevisionSummary[]; total: number }> {
    const post = await this.postOf(blog, slug);
    return this.deps.revisions.list(post.id, page.perPage, (page.page - 1) * page.perPage);
  }

  async get(blog: BlogWithDomain, slug: string, revisionId: string): Promise<Revision> {
    return this.revisionOf(await this.postOf(blog, slug), revisionId);
  }

  /**
   * Writes the revision's title and Markdown as `PUT` would (the same checks, If-Match and
   * publish job), as a new revision of its own: the history only ever grows forward.
   */
  async restore(blog: BlogWithDomain, slug: string, revisionId: string, keyId: string, precondition?: PostPrecondition): Promise<Post> {
    const revision = await this.revisionOf(await this.postOf(blog, slug), revisionId);
    return this.posts.update(blog, slug, { title: revision.title, contentMd: revision.contentMd, source: { keyId, restore: true } }, precondition);
  }

  /** The post's id alone: a listing reads no Markdown, not even the post's. */
  private async postOf(blog: BlogWithDomain, slug: string): Promise<{ id: string }> {
    const version = await this.deps.posts.versionBySlug(blog.id, slug);
    if (!version) throw new NotFoundError(`post "${slug}" not found`);
    return version;
  }

  private async revisionOf(post: { id: string }, revisionId: string): Promise<Revision> {
    const revision = await this.deps.revisions.find(post.id, revisionId);
    if (!revision) throw new NotFoundError(`revision "${revisionId}" of this post not found`);
    return revision;
  }
}
