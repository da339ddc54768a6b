/**
 * The analytics tables (migration 019): daily views, visitors and referrer hosts per blog and per
 * post, and the daily salts of the visitor hash. Rows cascade with their blog or post.
 */
import type { Db } from './database.js';
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

export class AnalyticsRepo {
  private readonly insertSaltStmt;
  private readonly saltStmt;
  private readonly deleteSaltsStmt;
  private readonly targetStmt;
  private readonly addBlogDayStmt;
  private readonly addPostDayStmt;
  private readonly addBlogRefStmt;
  private readonly addPostRefStmt;
  private readonly pruneStmts;
  private readonly topPostsStmt;

  constructor(private readonly db: Db) {
    this.insertSaltStmt = db.prepare('INSERT OR IGNORE INTO analytics_salts (day, salt) VALUES (?, ?)');
    this.saltStmt = db.prepare<[string], { salt: Buffer }>('SELECT salt FROM analytics_salts WHERE day = ?');
    this.deleteSaltsStmt = db.prepare('DELETE FROM analytics_salts WHERE day < ?');
    this.targetStmt = db.prepare<[string, string, string], { blog_id: string; post_id: string | null }>(
      `SELECT b.id AS blog_id, p.id AS post_id FROM blogs b
       LEFT JOIN posts p ON p.blog_id = b.id AND p.slug = ? AND p.status = 'published'
       WHERE b.slug = ? AND (? = '' OR p.id IS NOT NULL)`,
    );
    // Counts of a post or blog deleted since they were counted are dropped, never resurrected.
    this.addBlogDayStmt = db.prepare(
      `INSERT INTO analytics_blog_days (blog_id, day, views, visitors) SELECT @blogId, @day, @views, @visitors WHERE EXISTS (SELECT 1 FROM blogs WHERE id = @blogId)
       ON CONFLICT (blog_id, day) DO UPDATE SET views = views + excluded.views, visitors = visitors + excluded.visitors`,
    );
    this.addPostDayStmt = db.prepare(
      `INSERT INTO analytics_post_days (post_id, blog_id, day, views, visitors) SELECT @postId, @blogId, @day, @views, @visitors WHERE EXISTS (SELECT 1 FROM posts WHERE id = @postId AND blog_id = @blogId)
       ON CONFLICT (post_id, day) DO UPDATE SET views = views + excluded.views, visitors = visitors + excluded.visitors`,
    );
    this.addBlogRefStmt = db.prepare(
      `INSERT INTO analytics_blog_referrers (blog_id, day, host, views) SELECT @blogId, @day, @host, @views WHERE EXISTS (SELECT 1 FROM blogs WHERE id = @blogId)
       ON CONFLICT (blog_id, day, host) DO UPDATE SET views = views + excluded.views`,
    );
    this.addPostRefStmt = db.prepare(
      `INSERT INTO analytics_post_referrers (post_id, day, host, views) SELECT @postId, @day, @host, @views WHERE EXISTS (SELECT 1 FROM posts WHERE id = @postId)
       ON CONFLICT (post_id, day, host) DO UPDATE SET views = views + excluded.views`,
    );
    this.pruneStmts = ['analytics_blog_days', 'analytics_post_days', 'analytics_blog_referrers', 'analytics_post_referrers'].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE day < ?`),
    );
    this.topPostsStmt = db.prepare<[string, string, number], PostViews>(
      `SELECT p.slug, p.title, SUM(a.views) AS views FROM analytics_post_days a JOIN posts p ON p.id = a.post_id
       WHERE a.blog_id = ? AND a.day >= ? GROUP BY a.post_id ORDER BY views DESC, p.slug LIMIT ?`,
    );
  }

  /** The day's salt: `fresh` if the day has none yet (INSERT OR IGNORE: another process may have won). */
  saltFor(day: string, fresh: Buffer): Buffer {
    this.insertSaltStmt.run(day, fresh);
    return this.saltStmt.get(day)?.salt ?? fresh;
  }

  deleteSaltsBefore(day: string): void {
    this.deleteSaltsStmt.run(day);
  }

  /** The blog (and published post) a beacon names, or null when the blog has no such published post. */
  target(blogSlug: string, postSlug: string | null): ViewTarget | null {
    const row = this.targetStmt.get(postSlug ?? '', blogSlug, postSlug ?? '');
    if (!row) return null;
    return { blogId: row.blog_id, postId: postSlug === null ? null : row.post_id };
  }

  /** Adds a flush's counts; call inside a write transaction. */
  add(batch: ViewBatch): void {
    for (const row of batch.days) {
      if (row.postId === null) this.addBlogDayStmt.run({ blogId: row.blogId, day: row.day, views: row.views, visitors: row.visitors });
      else this.addPostDayStmt.run({ postId: row.postId, blogId: row.blogId, day: row.day, views: row.views, visitors: row.visitors });
    }
    for (const row of batch.referrers) {
      if (row.postId === null) this.addBlogRefStmt.run({ blogId: row.blogId, day: row.day, host: row.host, views: row.views });
      else this.addPostRefStmt.run({ postId: row.postId, day: row.day, host: row.host, views: row.views });
    }
  }

  /** Deletes every count of days before `day` (retention); returns the rows deleted. */
  pruneBefore(day: string): number {
    let deleted = 0;
    for (const stmt of this.pruneStmts) deleted += stmt.run(day).changes;
    return deleted;
  }

  totals(subject: Subject, fromDay: string): Totals {
    const [table, column, id] = daysOf(subject);
    const row = this.db
      .prepare<[string, string], { views: number | null; visitors: number | null }>(
        `SELECT SUM(views) AS views, SUM(visitors) AS visitors FROM ${table} WHERE ${column} = ? AND day >= ?`,
      )
      .get(id, fromDay);
    return { views: row?.views ?? 0, visitors: row?.visitors ?? 0 };
  }

  daily(subject: Subject, fromDay: string): DayViews[] {
    const [table, column, id] = daysOf(subject);
    return this.db.prepare<[string, string], DayViews>(`SELECT day, views FROM ${table} WHERE ${column} = ? AND day >= ? ORDER BY day`).all(id, fromDay);
  }

  referrers(subject: Subject, fromDay: string, limit: number): HostViews[] {
    const [table, column, id] =
      'postId' in subject ? ['analytics_post_referrers', 'post_id', subject.postId] : ['analytics_blog_referrers', 'blog_id', subject.blogId];
    return this.db
      .prepare<[string, string, number], HostViews>(
        `SELECT host, SUM(views) AS views FROM ${table} WHERE ${column} = ? AND day >= ? GROUP BY host ORDER BY views DESC, host LIMIT ?`,
      )
      .all(id, fromDay, limit);
  }

  topPosts(blogId: string, fromDay: string, limit: number): PostViews[] {
    return this.topPostsStmt.all(blogId, fromDay, limit);
  }
}

function daysOf(subject: Subject): [string, string, string] {
  return 'postId' in subject ? ['analytics_post_days', 'post_id', subject.postId] : ['analytics_blog_days', 'blog_id', subject.blogId];
}
