import type { ImageFormat } from '../media/mediaNames.js';
import type { Db } from './database.js';

export interface Media {
  id: string;
  blogId: string;
  hash: string;
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
  storedBytes: number;
  createdAt: string;
}

interface MediaRow {
  id: string;
  blog_id: string;
  hash: string;
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
  stored_bytes: number;
  created_at: string;
}

const toMedia = (row: MediaRow): Media => ({
  id: row.id,
  blogId: row.blog_id,
  hash: row.hash,
  format: row.format,
  width: row.width,
  height: row.height,
  bytes: row.bytes,
  storedBytes: row.stored_bytes,
  createdAt: row.created_at,
});

/** The `media` and `post_media` tables (migration 009). */
export class MediaRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byHashStmt;
  private readonly listStmt;
  private readonly countStmt;
  private readonly allStmt;
  private readonly deleteStmt;
  private readonly clearRefsStmt;
  private readonly addRefStmt;
  private readonly usedByStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO media (id, blog_id, hash, format, width, height, bytes, stored_bytes, created_at) VALUES (@id, @blogId, @hash, @format, @width, @height, @bytes, @storedBytes, @createdAt)',
    );
    this.byIdStmt = db.prepare<[string, string], MediaRow>('SELECT * FROM media WHERE blog_id = ? AND id = ?');
    this.byHashStmt = db.prepare<[string, string], MediaRow>('SELECT * FROM media WHERE blog_id = ? AND hash = ?');
    this.listStmt = db.prepare<[string, number, number], MediaRow>('SELECT * FROM media WHERE blog_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?');
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM media WHERE blog_id = ?');
    this.allStmt = db.prepare<[string], MediaRow>('SELECT * FROM media WHERE blog_id = ? ORDER BY hash');
    this.deleteStmt = db.prepare('DELETE FROM media WHERE id = ?');
    this.clearRefsStmt = db.prepare('DELETE FROM post_media WHERE post_id = ?');
    this.addRefStmt = db.prepare('INSERT OR IGNORE INTO post_media (post_id, blog_id, hash) VALUES (?, ?, ?)');
    this.usedByStmt = db.prepare<[string, string], { slug: string }>(
      "SELECT p.slug FROM post_media r JOIN posts p ON p.id = r.post_id WHERE r.blog_id = ? AND r.hash = ? AND p.status IN ('published', 'scheduled') ORDER BY p.slug LIMIT 1",
    );
  }

  insert(media: Media): void {
    this.insertStmt.run(media);
  }

  find(blogId: string, id: string): Media | null {
    const row = this.byIdStmt.get(blogId, id);
    return row ? toMedia(row) : null;
  }

  findByHash(blogId: string, hash: string): Media | null {
    const row = this.byHashStmt.get(blogId, hash);
    return row ? toMedia(row) : null;
  }

  /** Newest first. */
  list(blogId: string, page: number, perPage: number): { media: Media[]; total: number } {
    return { media: this.listStmt.all(blogId, perPage, (page - 1) * perPage).map(toMedia), total: this.countStmt.get(blogId)!.n };
  }

  /** Every image of the blog (site verify). */
  allOfBlog(blogId: string): Media[] {
    return this.allStmt.all(blogId).map(toMedia);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Records the images a post names now (replacing what it named before). */
  setPostRefs(postId: string, blogId: string, hashes: readonly string[]): void {
    this.clearRefsStmt.run(postId);
    for (const hash of hashes) this.addRefStmt.run(postId, blogId, hash);
  }

  /** The slug of a published or scheduled post naming the image, if any. */
  liveUser(blogId: string, hash: string): string | null {
    return this.usedByStmt.get(blogId, hash)?.slug ?? null;
  }
}
