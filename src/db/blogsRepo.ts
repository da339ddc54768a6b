import type { Db } from './database.js';
import { DbVersion, VersionedCache } from './versionedCache.js';
import type { Blog, BlogWithDomain } from '../domain/blog.js';
import type { ThemeConfig } from '../domain/siteTypes.js';

interface BlogRow {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  description: string;
  theme_config: string;
  discoverable: number;
  created_at: string;
  updated_at: string;
  hostname: string | null;
  domain_status: string | null;
}

const toBlog = (row: BlogRow): BlogWithDomain => ({
  id: row.id,
  accountId: row.account_id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  themeConfig: JSON.parse(row.theme_config) as ThemeConfig,
  discoverable: row.discoverable === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  customDomain: row.hostname,
  domainActive: row.domain_status === 'active',
});

const SELECT = `SELECT b.*, d.hostname, d.status AS domain_status FROM blogs b LEFT JOIN domains d ON d.blog_id = b.id`;

export class BlogsRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly bySlugStmt;
  private readonly listByAccountStmt;
  private readonly countByAccountStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly listAllStmt;
  private readonly slugExistsStmt;
  private readonly retireStmt;
  private readonly retiredStmt;
  private readonly releaseStmt;
  private readonly byActiveHostStmt;

  private readonly byIdCache: VersionedCache<BlogWithDomain | null>;

  constructor(db: Db, version: DbVersion = new DbVersion(db)) {
    this.byIdCache = new VersionedCache(version);
    this.insertStmt = db.prepare(
      `INSERT INTO blogs (id, account_id, slug, name, description, theme_config, discoverable, created_at, updated_at)
       VALUES (@id, @accountId, @slug, @name, @description, @themeConfig, @discoverable, @createdAt, @updatedAt)`,
    );
    this.byIdStmt = db.prepare<[string], BlogRow>(`${SELECT} WHERE b.id = ?`);
    this.bySlugStmt = db.prepare<[string], BlogRow>(`${SELECT} WHERE b.slug = ?`);
    // rowid breaks ties between blogs created in the same millisecond in creation order.
    this.listByAccountStmt = db.prepare<[string], BlogRow>(`${SELECT} WHERE b.account_id = ? ORDER BY b.created_at DESC, b.rowid DESC`);
    this.countByAccountStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM blogs WHERE account_id = ?');
    this.updateStmt = db.prepare(
      'UPDATE blogs SET name = @name, description = @description, theme_config = @themeConfig, discoverable = @discoverable, updated_at = @updatedAt WHERE id = @id',
    );
    this.deleteStmt = db.prepare('DELETE FROM blogs WHERE id = ?');
    this.listAllStmt = db.prepare<[], BlogRow>(`${SELECT} ORDER BY b.created_at, b.id`);
    this.slugExistsStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blogs WHERE slug = ?');
    this.retireStmt = db.prepare('INSERT OR REPLACE INTO retired_blog_slugs (slug, blog_id, retired_at) VALUES (?, ?, ?)');
    this.retiredStmt = db.prepare<[string], { blog_id: string }>('SELECT blog_id FROM retired_blog_slugs WHERE slug = ?');
    this.releaseStmt = db.prepare('DELETE FROM retired_blog_slugs WHERE slug = ? AND blog_id = ?');
    this.byActiveHostStmt = db.prepare<[string], BlogRow>(`${SELECT} WHERE d.hostname = ? AND d.status = 'active'`);
  }

  insert(blog: Blog): void {
    this.insertStmt.run({ ...blog, themeConfig: JSON.stringify(blog.themeConfig), discoverable: blog.discoverable ? 1 : 0 });
  }

  /** Served from memory until anything is written (versionedCache.ts): every API request asks. */
  findById(id: string): BlogWithDomain | null {
    return this.byIdCache.get(id, () => {
      const row = this.byIdStmt.get(id);
      return row ? toBlog(row) : null;
    });
  }

  findBySlug(slug: string): BlogWithDomain | null {
    const row = this.bySlugStmt.get(slug);
    return row ? toBlog(row) : null;
  }

  /** The account's blog with this id; another account's blog is treated as missing. */
  findOwned(accountId: string, id: string): BlogWithDomain | null {
    const blog = this.findById(id);
    return blog && blog.accountId === accountId ? blog : null;
  }

  /** The blog a custom hostname is active for, if any. */
  findByActiveDomain(hostname: string): BlogWithDomain | null {
    const row = this.byActiveHostStmt.get(hostname);
    return row ? toBlog(row) : null;
  }

  /** Whether a blog holds the slug now (the site server's per-request check: one index probe). */
  hasSlug(slug: string): boolean {
    return this.slugExistsStmt.get(slug) !== undefined;
  }

  /** Reserves a deleted blog's slug until its site is gone (migration 007); call in the delete's transaction. */
  retireSlug(slug: string, blogId: string, now: string): void {
    this.retireStmt.run(slug, blogId, now);
  }

  isSlugRetired(slug: string): boolean {
    return this.retiredStmt.get(slug) !== undefined;
  }

  /** Frees the slug once the deleted blog's objects and index are gone. */
  releaseSlug(slug: string, blogId: string): void {
    this.releaseStmt.run(slug, blogId);
  }

  listByAccount(accountId: string): BlogWithDomain[] {
    return this.listByAccountStmt.all(accountId).map(toBlog);
  }

  listAll(): BlogWithDomain[] {
    return this.listAllStmt.all().map(toBlog);
  }

  countByAccount(accountId: string): number {
    return this.countByAccountStmt.get(accountId)?.n ?? 0;
  }

  update(blog: Pick<Blog, 'id' | 'name' | 'description' | 'themeConfig' | 'discoverable' | 'updatedAt'>): void {
    this.updateStmt.run({ ...blog, themeConfig: JSON.stringify(blog.themeConfig), discoverable: blog.discoverable ? 1 : 0 });
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }
}
