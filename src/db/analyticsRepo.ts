/**
 * The analytics tables (migration 019): daily views, visitors and referrer hosts per blog and per
 * post, and the daily salts of the visitor hash. Rows cascade with their blog or post.
 */
import type { SqlWriter } from './sql/sqlClient.js';
import type { ViewBatch, ViewTarget } from '../analytics/viewCounter.js';

export interface DayViews {
  day: string;
  views: number;
}

export interface Totals {
  views: number;
  visitors: number;
}

export interface HostViews {
  host: string;
  views: number;
}

export interface PostViews {
  slug: string;
  title: string;
  views: number;
}

/** Which rows a query reads: the blog's own, or one post's. */
export type Subject = { blogId: string } | { postId: string };

const DAY_TABLES = ['analytics_blog_days', 'analytics_post_days', 'analytics_blog_referrers', 'analytics_post_referrers'] as const;

export class AnalyticsRepo {
  constructor(private readonly sql: SqlWriter) {}

  /** The same queries inside a transaction. */
  in(tx: SqlWriter): AnalyticsRepo {
    return new AnalyticsRepo(tx);
  }

  /** The day's salt: `fresh` if the day has none yet (another process may have stored one first). */
  async saltFor(day: string, fresh: Buffer): Promise<Buffer> {
    await this.sql.run('INSERT INTO analytics_salts (day, salt) VALUES (?, ?) ON CONFLICT DO NOTHING', [day, fresh]);
    return (await this.sql.get<{ salt: Buffer }>('SELECT salt FROM analytics_salts WHERE day = ?', [day]))?.salt ?? fresh;
  }

  async deleteSaltsBefore(day: string): Promise<void> {
    await this.sql.run('DELETE FROM analytics_salts WHERE day < ?', [day]);
  }

  /** The blog (and published post) a beacon names, or null when the blog has no such published post. */
  async target(blogSlug: string, postSlug: string | null): Promise<ViewTarget | null> {
    const row = await this.sql.get<{ blog_id: string; post_id: string | null }>(
      `SELECT b.id AS blog_id, p.id AS post_id FROM blogs b
       LEFT JOIN posts p ON p.blog_id = b.id AND p.slug = ? AND p.status = 'published'
       WHERE b.slug = ? AND (? = '' OR p.id IS NOT NULL)`,
      [postSlug ?? '', blogSlug, postSlug ?? ''],
    );
    if (!row) return null;
    return { blogId: row.blog_id, postId: postSlug === null ? null : row.post_id };
  }

  /**
   * Adds a flush's counts; call inside a transaction. Counts of a post or blog deleted since they
   * were counted are dropped, never resurrected.
   */
  async add(batch: ViewBatch): Promise<void> {
    for (const row of batch.days) {
      if (row.postId === null) {
        await this.sql.run(
          `INSERT INTO analytics_blog_days (blog_id, day, views, visitors) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM blogs WHERE id = ?)
           ON CONFLICT (blog_id, day) DO UPDATE SET views = analytics_blog_days.views + excluded.views, visitors = analytics_blog_days.visitors + excluded.visitors`,
          [row.blogId, row.day, row.views, row.visitors, row.blogId],
        );
      } else {
        await this.sql.run(
          `INSERT INTO analytics_post_days (post_id, blog_id, day, views, visitors) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM posts WHERE id = ? AND blog_id = ?)
           ON CONFLICT (post_id, day) DO UPDATE SET views = analytics_post_days.views + excluded.views, visitors = analytics_post_days.visitors + excluded.visitors`,
          [row.postId, row.blogId, row.day, row.views, row.visitors, row.postId, row.blogId],
        );
      }
    }
    for (const row of batch.referrers) {
      if (row.postId === null) {
        await this.sql.run(
          `INSERT INTO analytics_blog_referrers (blog_id, day, host, views) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM blogs WHERE id = ?)
           ON CONFLICT (blog_id, day, host) DO UPDATE SET views = analytics_blog_referrers.views + excluded.views`,
          [row.blogId, row.day, row.host, row.views, row.blogId],
        );
      } else {
        await this.sql.run(
          `INSERT INTO analytics_post_referrers (post_id, day, host, views) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM posts WHERE id = ?)
           ON CONFLICT (post_id, day, host) DO UPDATE SET views = analytics_post_referrers.views + excluded.views`,
          [row.postId, row.day, row.host, row.views, row.postId],
        );
      }
    }
  }

  /** Deletes every count of days before `day` (retention); returns the rows deleted. */
  async pruneBefore(day: string): Promise<number> {
    let deleted = 0;
    for (const table of DAY_TABLES) deleted += (await this.sql.run(`DELETE FROM ${table} WHERE day < ?`, [day])).changes;
    return deleted;
  }

  async totals(subject: Subject, fromDay: string): Promise<Totals> {
    const [table, column, id] = daysOf(subject);
    const row = await this.sql.get<{ views: number | null; visitors: number | null }>(
      `SELECT SUM(views) AS views, SUM(visitors) AS visitors FROM ${table} WHERE ${column} = ? AND day >= ?`,
      [id, fromDay],
    );
    return { views: row?.views ?? 0, visitors: row?.visitors ?? 0 };
  }

  daily(subject: Subject, fromDay: string): Promise<DayViews[]> {
    const [table, column, id] = daysOf(subject);
    return this.sql.all<DayViews>(`SELECT day, views FROM ${table} WHERE ${column} = ? AND day >= ? ORDER BY day`, [id, fromDay]);
  }

  referrers(subject: Subject, fromDay: string, limit: number): Promise<HostViews[]> {
    const [table, column, id] =
      'postId' in subject ? ['analytics_post_referrers', 'post_id', subject.postId] : ['analytics_blog_referrers', 'blog_id', subject.blogId];
    return this.sql.all<HostViews>(
      `SELECT host, SUM(views) AS views FROM ${table} WHERE ${column} = ? AND day >= ? GROUP BY host ORDER BY views DESC, host LIMIT ?`,
      [id, fromDay, limit],
    );
  }

  topPosts(blogId: string, fromDay: string, limit: number): Promise<PostViews[]> {
    return this.sql.all<PostViews>(
      `SELECT p.slug, p.title, SUM(a.views) AS views FROM analytics_post_days a JOIN posts p ON p.id = a.post_id
       WHERE a.blog_id = ? AND a.day >= ? GROUP BY a.post_id, p.slug, p.title ORDER BY views DESC, p.slug LIMIT ?`,
      [blogId, fromDay, limit],
    );
  }
}

function daysOf(subject: Subject): [string, string, string] {
  return 'postId' in subject ? ['analytics_post_days', 'post_id', subject.postId] : ['analytics_blog_days', 'blog_id', subject.blogId];
}
