import type { ImageFormat } from '../media/mediaNames.js';
import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';

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
  constructor(private readonly sql: SqlScope) {}

  /** The same queries inside a transaction. */
  in(tx: SqlTransaction): MediaRepo {
    return new MediaRepo(tx);
  }

  async insert(media: Media): Promise<void> {
    await this.sql.run('INSERT INTO media (id, blog_id, hash, format, width, height, bytes, stored_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      media.id,
      media.blogId,
      media.hash,
      media.format,
      media.width,
      media.height,
      media.bytes,
      media.storedBytes,
      media.createdAt,
    ]);
  }

  async find(blogId: string, id: string): Promise<Media | null> {
    const row = await this.sql.get<MediaRow>('SELECT * FROM media WHERE blog_id = ? AND id = ?', [blogId, id]);
    return row ? toMedia(row) : null;
  }

  async findByHash(blogId: string, hash: string): Promise<Media | null> {
    const row = await this.sql.get<MediaRow>('SELECT * FROM media WHERE blog_id = ? AND hash = ?', [blogId, hash]);
    return row ? toMedia(row) : null;
  }

  /** Newest first. */
  async list(blogId: string, page: number, perPage: number): Promise<{ media: Media[]; total: number }> {
    const rows = await this.sql.all<MediaRow>('SELECT * FROM media WHERE blog_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?', [
      blogId,
      perPage,
      (page - 1) * perPage,
    ]);
    const count = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM media WHERE blog_id = ?', [blogId]);
    return { media: rows.map(toMedia), total: count!.n };
  }

  /** Every image of the blog (site verify). */
  async allOfBlog(blogId: string): Promise<Media[]> {
    return (await this.sql.all<MediaRow>('SELECT * FROM media WHERE blog_id = ? ORDER BY hash', [blogId])).map(toMedia);
  }

  async delete(id: string): Promise<void> {
    await this.sql.run('DELETE FROM media WHERE id = ?', [id]);
  }

  /** Records the images a post names now (replacing what it named before), all or nothing. */
  async setPostRefs(postId: string, blogId: string, hashes: readonly string[]): Promise<void> {
    await atomically(this.sql, async (tx) => {
      await tx.run('DELETE FROM post_media WHERE post_id = ?', [postId]);
      for (const hash of hashes)
        await tx.run('INSERT INTO post_media (post_id, blog_id, hash) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [postId, blogId, hash]);
    });
  }

  /** The slug of a published or scheduled post naming the image, if any. */
  async liveUser(blogId: string, hash: string): Promise<string | null> {
    const row = await this.sql.get<{ slug: string }>(
      "SELECT p.slug FROM post_media r JOIN posts p ON p.id = r.post_id WHERE r.blog_id = ? AND r.hash = ? AND p.status IN ('published', 'scheduled') ORDER BY p.slug LIMIT 1",
      [blogId, hash],
    );
    return row?.slug ?? null;
  }
}
