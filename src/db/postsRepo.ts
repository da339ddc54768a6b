import { atomically, type SqlScope, type SqlTransaction, type SqlWriter } from './sql/sqlClient.js';
import { SUMMARY_COLUMNS, toParams, toPost, toSummary, type PostRow, type SummaryRow, type ExportRow } from './postRows.js';
import type { Post, PostListQuery, PostSortField, PostSummary, PostVersion } from '../domain/post.js';

// Whitelisted: the sort column is the only SQL built from input, so it comes from this map.
const SORT_COLUMNS: Record<PostSortField, string> = {
  created_at: 'created_at',
  published_at: 'published_at',
  updated_at: 'updated_at',
};

const INSERT_POST = `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, meta_explicit,
                          og_image_url, tags, status, published_at, scheduled_at, created_at, updated_at, text_counts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const UPDATE_POST = `UPDATE posts SET title = ?, slug = ?, content_md = ?, content_html = ?,
              meta_description = ?, meta_explicit = ?, og_image_url = ?,
              tags = ?, status = ?, published_at = ?, scheduled_at = ?,
              updated_at = ?, text_counts = ?, revision = revision + 1
        WHERE id = ? RETURNING revision`;

// The page's rowids come from the blog's index alone, then only those rows are read: ordered
// by rowid over the blog, SQLite would sort every remaining row of the blog, Markdown and HTML
// included, to keep twenty. No HTML and no counts: the export leaves them out.
const EXPORT_PAGE = `SELECT rowid AS seq, id, blog_id, title, slug, content_md, '' AS content_html, meta_description, meta_explicit, og_image_url, tags, status,
              published_at, scheduled_at, created_at, updated_at, NULL AS text_counts, revision
         FROM posts WHERE rowid IN (SELECT rowid FROM posts WHERE blog_id = ? AND rowid > ? ORDER BY rowid LIMIT ?) ORDER BY rowid`;
// PostgreSQL has no rowid: its posts have `seq` (insertion order, migrations/postgres/024),
// and the page is read along posts_by_blog_seq.
const EXPORT_PAGE_PG = `SELECT seq, id, blog_id, title, slug, content_md, '' AS content_html, meta_description, meta_explicit, og_image_url, tags, status,
              published_at, scheduled_at, created_at, updated_at, NULL AS text_counts, revision
         FROM posts WHERE blog_id = ? AND seq > ? ORDER BY seq LIMIT ?`;

/**
 * Rows an export page reads per query: the seam has no cursor to stop mid-result, so a page
 * is read a few rows at a time and stops once its Markdown reaches `maxChars`.
 */
const EXPORT_BATCH = 5;

/** The columns a post's insert writes, in INSERT_POST's order. */
function insertValues(post: Post) {
  const p = toParams(post);
  return [
    p.id,
    p.blogId,
    p.title,
    p.slug,
    p.contentMd,
    p.contentHtml,
    p.metaDescription,
    p.metaExplicit,
    p.ogImageUrl,
    p.tags,
    p.status,
    p.publishedAt,
    p.scheduledAt,
    p.createdAt,
    p.updatedAt,
    p.textCounts,
  ];
}

/** The columns a post's update writes, in UPDATE_POST's order (its id last). */
function updateValues(post: Post) {
  const p = toParams(post);
  return [
    p.title,
    p.slug,
    p.contentMd,
    p.contentHtml,
    p.metaDescription,
    p.metaExplicit,
    p.ogImageUrl,
    p.tags,
    p.status,
    p.publishedAt,
    p.scheduledAt,
    p.updatedAt,
    p.textCounts,
    p.id,
  ];
}

async function writeTags(tx: SqlWriter, post: Post): Promise<void> {
  await tx.run('DELETE FROM post_tags WHERE post_id = ?', [post.id]);
  for (const tag of post.tags) {
    await tx.run('INSERT INTO post_tags (post_id, blog_id, tag) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [post.id, post.blogId, tag]);
  }
}

export class PostsRepo {
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): PostsRepo {
    return new PostsRepo(tx);
  }

  /** The post's aliases (normalised paths, services/aliases.ts), in the author's order. */
  async aliasesOf(postId: string): Promise<string[]> {
    const rows = await this.sql.all<{ path: string }>('SELECT path FROM post_aliases WHERE post_id = ? ORDER BY position', [postId]);
    return rows.map((row) => row.path);
  }

  /** The id of the post that has `path` as an alias, or null. */
  async aliasHolder(blogId: string, path: string): Promise<string | null> {
    return (await this.sql.get<{ post_id: string }>('SELECT post_id FROM post_aliases WHERE blog_id = ? AND path = ?', [blogId, path]))?.post_id ?? null;
  }

  /** Replaces the post's aliases; the caller runs this inside a transaction, after checking them. */
  async setAliases(blogId: string, postId: string, paths: readonly string[], now: string): Promise<void> {
    await atomically(this.sql, async (tx) => {
      await tx.run('DELETE FROM post_aliases WHERE post_id = ?', [postId]);
      for (const [i, path] of paths.entries()) {
        await tx.run('INSERT INTO post_aliases (blog_id, path, post_id, position, created_at) VALUES (?, ?, ?, ?, ?)', [blogId, path, postId, i, now]);
      }
    });
  }

  /** Inserts the post and its tag rows; the caller runs this inside a transaction. */
  async insert(post: Post): Promise<void> {
    await atomically(this.sql, async (tx) => {
      await tx.run(INSERT_POST, insertValues(post));
      await writeTags(tx, post);
    });
  }

  /** Writes the post; its `revision` is advanced, in the row and on `post`, to what was written. */
  async update(post: Post): Promise<void> {
    // `post` changes only once the writes are done: the function may run more than once.
    const written = await atomically(this.sql, async (tx) => {
      const row = await tx.get<{ revision: number }>(UPDATE_POST, updateValues(post));
      await writeTags(tx, post);
      return row;
    });
    if (written) post.revision = written.revision;
  }

  async delete(id: string): Promise<void> {
    await this.sql.run('DELETE FROM posts WHERE id = ?', [id]);
  }

  /** The post's id and row version alone (no Markdown or HTML read), or null. */
  async versionBySlug(blogId: string, slug: string): Promise<PostVersion | null> {
    return (await this.sql.get<PostVersion>('SELECT id, revision FROM posts WHERE blog_id = ? AND slug = ?', [blogId, slug])) ?? null;
  }

  async findBySlug(blogId: string, slug: string): Promise<Post | null> {
    const row = await this.sql.get<PostRow>('SELECT * FROM posts WHERE blog_id = ? AND slug = ?', [blogId, slug]);
    return row ? toPost(row) : null;
  }

  /**
   * The blog's posts after `after` in row order, without `contentHtml` and `textCounts` (empty):
   * at most `limit` of them, and no more once their Markdown reaches `maxChars` (at least one).
   * So a page of large posts is not one huge read in one turn of the event loop.
   */
  async exportPage(blogId: string, after: number, limit: number, maxChars = Number.POSITIVE_INFINITY): Promise<{ posts: Post[]; next: number }> {
    const posts: Post[] = [];
    let next = after;
    let chars = 0;
    while (posts.length < limit) {
      const batch = Math.min(limit - posts.length, maxChars === Number.POSITIVE_INFINITY ? limit : EXPORT_BATCH);
      const rows = await this.sql.all<ExportRow>(this.sql.dialect === 'postgres' ? EXPORT_PAGE_PG : EXPORT_PAGE, [blogId, next, batch]);
      for (const row of rows) {
        posts.push(toPost(row));
        next = row.seq;
        chars += row.content_md.length;
        if (chars >= maxChars) return { posts, next };
      }
      if (rows.length < batch) break;
    }
    return { posts, next };
  }

  async findById(id: string): Promise<Post | null> {
    const row = await this.sql.get<PostRow>('SELECT * FROM posts WHERE id = ?', [id]);
    return row ? toPost(row) : null;
  }

  /**
   * One page of the blog's posts, without their bodies: a list shows titles, and reading each
   * post's Markdown and HTML for it would hold the event loop for seconds on large posts.
   */
  async list(blogId: string, query: PostListQuery): Promise<{ posts: PostSummary[]; total: number }> {
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
    // Posts never published sort last in either direction; insertion order breaks ties (SQLite's
    // rowid, PostgreSQL's seq). The texts come from a small fixed set (filters, column,
    // direction): the client caches each.
    const inserted = this.sql.dialect === 'postgres' ? 'p.seq' : 'p.rowid';
    const order = `p.${column} IS NULL, p.${column} ${direction}, ${inserted} ${direction}`;
    const where = filters.join(' AND ');
    const total = (await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM posts p WHERE ${where}`, params))?.n ?? 0;
    const rows = await this.sql.all<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM posts p WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [
      ...params,
      query.perPage,
      (query.page - 1) * query.perPage,
    ]);
    return { posts: rows.map(toSummary), total };
  }

  /** Scheduled posts whose time has come, oldest first. */
  async listDue(nowIso: string, limit: number): Promise<Post[]> {
    const rows = await this.sql.all<PostRow>(`SELECT * FROM posts WHERE status = 'scheduled' AND scheduled_at <= ? ORDER BY scheduled_at, id LIMIT ?`, [
      nowIso,
      limit,
    ]);
    return rows.map(toPost);
  }

  /** Slugs `base` and `base-<anything>` in the blog, with the posts that hold them. */
  async slugsStartingWith(blogId: string, base: string): Promise<Map<string, string>> {
    // `base` and `base-…` as two probes of the (blog_id, slug) unique index. Written with OR,
    // SQLite would scan every post of the blog instead.
    const rows = await this.sql.all<{ id: string; slug: string }>(
      'SELECT id, slug FROM posts WHERE blog_id = ? AND slug = ? UNION ALL SELECT id, slug FROM posts WHERE blog_id = ? AND slug > ? AND slug < ?',
      [blogId, base, blogId, `${base}-`, `${base}-\u{10FFFF}`],
    );
    return new Map(rows.map((row) => [row.slug, row.id]));
  }

  async addRedirect(blogId: string, oldSlug: string, postId: string, now: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO post_redirects (blog_id, old_slug, post_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (blog_id, old_slug) DO UPDATE SET post_id = excluded.post_id, created_at = excluded.created_at`,
      [blogId, oldSlug, postId, now],
    );
  }

  /** Drops the renamed-slug redirect at `slug`; the id of the post it led to, or null when there was none. */
  async removeRedirect(blogId: string, slug: string): Promise<string | null> {
    const row = await this.sql.get<{ post_id: string }>('DELETE FROM post_redirects WHERE blog_id = ? AND old_slug = ? RETURNING post_id', [blogId, slug]);
    return row?.post_id ?? null;
  }

  async findRedirect(blogId: string, slug: string): Promise<string | null> {
    return (await this.sql.get<{ post_id: string }>('SELECT post_id FROM post_redirects WHERE blog_id = ? AND old_slug = ?', [blogId, slug]))?.post_id ?? null;
  }

  async redirectsOf(postId: string): Promise<string[]> {
    const rows = await this.sql.all<{ old_slug: string }>('SELECT old_slug FROM post_redirects WHERE post_id = ? ORDER BY old_slug', [postId]);
    return rows.map((row) => row.old_slug);
  }
}
