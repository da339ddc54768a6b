import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import { SUMMARY_COLUMNS, toParams, toPost, toSummary, type PostRow, type SummaryRow, type ExportRow } from './postRows.js';
import type { Post, PostListQuery, PostSortField, PostSummary, PostVersion } from '../domain/post.js';

// Whitelisted: the sort column is the only SQL built from input, so it comes from this map.
const SORT_COLUMNS: Record<PostSortField, string> = {
  created_at: 'created_at',
  published_at: 'published_at',
  updated_at: 'updated_at',
};

export class PostsRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly bySlugStmt;
  private readonly versionBySlugStmt;
  private readonly byIdStmt;
  private readonly deleteTagsStmt;
  private readonly insertTagStmt;
  private readonly dueStmt;
  private readonly upsertRedirectStmt;
  private readonly deleteRedirectStmt;
  private readonly findRedirectStmt;
  private readonly redirectsOfPostStmt;
  private readonly numberedSlugsStmt;
  private readonly aliasesOfPostStmt;
  private readonly aliasHolderStmt;
  private readonly deleteAliasesStmt;
  private readonly insertAliasStmt;
  private readonly exportPageStmt;
  private readonly listStatements = new Map<string, { rows: Statement<unknown[], SummaryRow>; count: Statement<unknown[], { n: number }> }>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, meta_explicit,
                          og_image_url, tags, status, published_at, scheduled_at, created_at, updated_at, text_counts)
       VALUES (@id, @blogId, @title, @slug, @contentMd, @contentHtml, @metaDescription, @metaExplicit,
               @ogImageUrl, @tags, @status, @publishedAt, @scheduledAt, @createdAt, @updatedAt, @textCounts)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE posts SET title = @title, slug = @slug, content_md = @contentMd, content_html = @contentHtml,
              meta_description = @metaDescription, meta_explicit = @metaExplicit, og_image_url = @ogImageUrl,
              tags = @tags, status = @status, published_at = @publishedAt, scheduled_at = @scheduledAt,
              updated_at = @updatedAt, text_counts = @textCounts, revision = revision + 1
        WHERE id = @id RETURNING revision`,
    );
    this.deleteStmt = db.prepare('DELETE FROM posts WHERE id = ?');
    this.bySlugStmt = db.prepare<[string, string], PostRow>('SELECT * FROM posts WHERE blog_id = ? AND slug = ?');
    this.versionBySlugStmt = db.prepare<[string, string], PostVersion>('SELECT id, revision FROM posts WHERE blog_id = ? AND slug = ?');
    this.byIdStmt = db.prepare<[string], PostRow>('SELECT * FROM posts WHERE id = ?');
    this.deleteTagsStmt = db.prepare('DELETE FROM post_tags WHERE post_id = ?');
    this.insertTagStmt = db.prepare('INSERT OR IGNORE INTO post_tags (post_id, blog_id, tag) VALUES (?, ?, ?)');
    this.dueStmt = db.prepare<[string, number], PostRow>(
      `SELECT * FROM posts WHERE status = 'scheduled' AND scheduled_at <= ? ORDER BY scheduled_at, id LIMIT ?`,
    );
    this.upsertRedirectStmt = db.prepare(
      `INSERT INTO post_redirects (blog_id, old_slug, post_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (blog_id, old_slug) DO UPDATE SET post_id = excluded.post_id, created_at = excluded.created_at`,
    );
    this.deleteRedirectStmt = db.prepare('DELETE FROM post_redirects WHERE blog_id = ? AND old_slug = ?');
    this.findRedirectStmt = db.prepare<[string, string], { post_id: string }>('SELECT post_id FROM post_redirects WHERE blog_id = ? AND old_slug = ?');
    // `base` and `base-…` as two probes of the (blog_id, slug) unique index. Written with OR,
    // SQLite would scan every post of the blog instead.
    this.numberedSlugsStmt = db.prepare<[string, string, string, string, string], { id: string; slug: string }>(
      'SELECT id, slug FROM posts WHERE blog_id = ? AND slug = ? UNION ALL SELECT id, slug FROM posts WHERE blog_id = ? AND slug > ? AND slug < ?',
    );
    // The page's rowids come from the blog's index alone, then only those rows are read: ordered
    // by rowid over the blog, SQLite would sort every remaining row of the blog, Markdown and HTML
    // included, to keep twenty. No HTML and no counts: the export leaves them out.
    this.exportPageStmt = db.prepare<[string, number, number], ExportRow>(
      `SELECT rowid AS seq, id, blog_id, title, slug, content_md, '' AS content_html, meta_description, meta_explicit, og_image_url, tags, status,
              published_at, scheduled_at, created_at, updated_at, NULL AS text_counts, revision
         FROM posts WHERE rowid IN (SELECT rowid FROM posts WHERE blog_id = ? AND rowid > ? ORDER BY rowid LIMIT ?) ORDER BY rowid`,
    );
    this.redirectsOfPostStmt = db.prepare<[string], { old_slug: string }>('SELECT old_slug FROM post_redirects WHERE post_id = ? ORDER BY old_slug');
    this.aliasesOfPostStmt = db.prepare<[string], { path: string }>('SELECT path FROM post_aliases WHERE post_id = ? ORDER BY position');
    this.aliasHolderStmt = db.prepare<[string, string], { post_id: string }>('SELECT post_id FROM post_aliases WHERE blog_id = ? AND path = ?');
    this.deleteAliasesStmt = db.prepare('DELETE FROM post_aliases WHERE post_id = ?');
    this.insertAliasStmt = db.prepare('INSERT INTO post_aliases (blog_id, path, post_id, position, created_at) VALUES (?, ?, ?, ?, ?)');
  }

  /** The post's aliases (normalised paths, services/aliases.ts), in the author's order. */
  aliasesOf(postId: string): string[] {
    return this.aliasesOfPostStmt.all(postId).map((row) => row.path);
  }

  /** The id of the post that has `path` as an alias, or null. */
  aliasHolder(blogId: string, path: string): string | null {
    return this.aliasHolderStmt.get(blogId, path)?.post_id ?? null;
  }

  /** Replaces the post's aliases; the caller runs this inside a transaction, after checking them. */
  setAliases(blogId: string, postId: string, paths: readonly string[], now: string): void {
    this.deleteAliasesStmt.run(postId);
    for (const [i, path] of paths.entries()) this.insertAliasStmt.run(blogId, path, postId, i, now);
  }

  /** Inserts the post and its tag rows; the caller runs this inside a transaction. */
  insert(post: Post): void {
    this.insertStmt.run(toParams(post));
    this.writeTags(post);
  }

  /** Writes the post; its `revision` is advanced, in the row and on `post`, to what was written. */
  update(post: Post): void {
    const written = this.updateStmt.get(toParams(post)) as { revision: number } | undefined;
    if (written) post.revision = written.revision;
    this.writeTags(post);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** The post's id and row version alone (no Markdown or HTML read), or null. */
  versionBySlug(blogId: string, slug: string): PostVersion | null {
    return this.versionBySlugStmt.get(blogId, slug) ?? null;
  }

  findBySlug(blogId: string, slug: string): Post | null {
    const row = this.bySlugStmt.get(blogId, slug);
    return row ? toPost(row) : null;
  }

  /** Whole posts of a blog in insertion order, `limit` after position `after` (0 to start): for exports. */
  /**
   * The blog's posts after `after` in row order, without `contentHtml` and `textCounts` (empty):
   * at most `limit` of them, and no more once their Markdown reaches `maxChars` (at least one).
   * So a page of large posts is not one huge read in one turn of the event loop.
   */
  exportPage(blogId: string, after: number, limit: number, maxChars = Number.POSITIVE_INFINITY): { posts: Post[]; next: number } {
    const posts: Post[] = [];
    let next = after;
    let chars = 0;
    for (const row of this.exportPageStmt.iterate(blogId, after, limit)) {
      posts.push(toPost(row));
      next = row.seq;
      chars += row.content_md.length;
      // Leaving the loop early closes the statement (better-sqlite3 resets it on return).
      if (chars >= maxChars) break;
    }
    return { posts, next };
  }

  findById(id: string): Post | null {
    const row = this.byIdStmt.get(id);
    return row ? toPost(row) : null;
  }

  /**
   * One page of the blog's posts, without their bodies: a list shows titles, and reading each
   * post's Markdown and HTML for it would hold the event loop for seconds on large posts.
   */
  list(blogId: string, query: PostListQuery): { posts: PostSummary[]; total: number } {
    const filters = ['p.blog_id = ?'];
    const params: (string | number)[] = [blogId];
    if (query.status) {
      filters.push('p.status = ?');
      params.push(query.status);
    }
    if (query.tag !== undefined) {
      filters.push('EXISTS (SELECT 1 FROM post_tags t WHERE t.post_id = p.id AND t.tag = ?)');
      params.push(query.tag);
    }
    const column = SORT_COLUMNS[query.sort];
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    // Posts never published sort last in either direction; rowid (insertion order) breaks ties.
    const order = `p.${column} IS NULL, p.${column} ${direction}, p.rowid ${direction}`;
    const cacheKey = `${filters.join(' AND ')}|${order}`;
    let statements = this.listStatements.get(cacheKey);
    if (!statements) {
      statements = {
        rows: this.db.prepare<unknown[], SummaryRow>(
          `SELECT ${SUMMARY_COLUMNS} FROM posts p WHERE ${filters.join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`,
        ),
        count: this.db.prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM posts p WHERE ${filters.join(' AND ')}`),
      };
      this.listStatements.set(cacheKey, statements);
    }
    const total = statements.count.get(...params)?.n ?? 0;
    const rows = statements.rows.all(...params, query.perPage, (query.page - 1) * query.perPage);
    return { posts: rows.map(toSummary), total };
  }

  /** Scheduled posts whose time has come, oldest first. */
  listDue(nowIso: string, limit: number): Post[] {
    return this.dueStmt.all(nowIso, limit).map(toPost);
  }

  /** Slugs `base` and `base-<anything>` in the blog, with the posts that hold them. */
  slugsStartingWith(blogId: string, base: string): Map<string, string> {
    const rows = this.numberedSlugsStmt.all(blogId, base, blogId, `${base}-`, `${base}-\u{10FFFF}`);
    return new Map(rows.map((row) => [row.slug, row.id]));
  }

  addRedirect(blogId: string, oldSlug: string, postId: string, now: string): void {
    this.upsertRedirectStmt.run(blogId, oldSlug, postId, now);
  }

  removeRedirect(blogId: string, slug: string): void {
    this.deleteRedirectStmt.run(blogId, slug);
  }

  findRedirect(blogId: string, slug: string): string | null {
    return this.findRedirectStmt.get(blogId, slug)?.post_id ?? null;
  }

  redirectsOf(postId: string): string[] {
    return this.redirectsOfPostStmt.all(postId).map((row) => row.old_slug);
  }

  private writeTags(post: Post): void {
    this.deleteTagsStmt.run(post.id);
    for (const tag of post.tags) this.insertTagStmt.run(post.id, post.blogId, tag);
  }
}
