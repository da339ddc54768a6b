import type { SqlScope, SqlTransaction } from './sql/sqlClient.js';
import { type ChangeVersion, VersionedCache } from './versionedCache.js';
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
const BY_ID = `${SELECT} WHERE b.id = ?`;
const BY_SLUG = `${SELECT} WHERE b.slug = ?`;
const BY_ACTIVE_HOST = `${SELECT} WHERE d.hostname = ? AND d.status = 'active'`;
// Insertion order breaks ties between blogs created in the same millisecond: SQLite's rowid,
// PostgreSQL's seq (migrations/postgres/024).
const LIST_BY_ACCOUNT = `${SELECT} WHERE b.account_id = ? ORDER BY b.created_at DESC, b.rowid DESC`;
const LIST_BY_ACCOUNT_PG = `${SELECT} WHERE b.account_id = ? ORDER BY b.created_at DESC, b.seq DESC`;
const LIST_ALL = `${SELECT} ORDER BY b.created_at, b.id`;

export class BlogsRepo {
  /** Absent without a version, and always in a transaction (in()): such reads neither use nor fill it. */
  private readonly byIdCache: VersionedCache<BlogWithDomain | null> | undefined;

  constructor(
    private readonly sql: SqlScope,
    version?: ChangeVersion,
  ) {
    this.byIdCache = version ? new VersionedCache(version) : undefined;
  }

  /** The same queries inside a transaction, without the cache. */
  in(tx: SqlTransaction): BlogsRepo {
    return new BlogsRepo(tx);
  }

  async insert(blog: Blog): Promise<void> {
    await this.sql.run(
      `INSERT INTO blogs (id, account_id, slug, name, description, theme_config, discoverable, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        blog.id,
        blog.accountId,
        blog.slug,
        blog.name,
        blog.description,
        JSON.stringify(blog.themeConfig),
        blog.discoverable ? 1 : 0,
        blog.createdAt,
        blog.updatedAt,
      ],
    );
  }

  /** Served from memory until anything is written (versionedCache.ts): every API request asks. */
  async findById(id: string): Promise<BlogWithDomain | null> {
    const load = async (): Promise<BlogWithDomain | null> => {
      const row = await this.sql.get<BlogRow>(BY_ID, [id]);
      return row ? toBlog(row) : null;
    };
    return this.byIdCache ? await this.byIdCache.get(id, load) : await load();
  }

  async findBySlug(slug: string): Promise<BlogWithDomain | null> {
    const row = await this.sql.get<BlogRow>(BY_SLUG, [slug]);
    return row ? toBlog(row) : null;
  }

  /** The account's blog with this id; another account's blog is treated as missing. */
  async findOwned(accountId: string, id: string): Promise<BlogWithDomain | null> {
    const blog = await this.findById(id);
    return blog && blog.accountId === accountId ? blog : null;
  }

  /** The blog a custom hostname is active for, if any. */
  async findByActiveDomain(hostname: string): Promise<BlogWithDomain | null> {
    const row = await this.sql.get<BlogRow>(BY_ACTIVE_HOST, [hostname]);
    return row ? toBlog(row) : null;
  }

  /** Whether a blog holds the slug now (the site server's per-request check: one index probe). */
  async hasSlug(slug: string): Promise<boolean> {
    return (await this.sql.get<{ one: number }>('SELECT 1 AS one FROM blogs WHERE slug = ?', [slug])) !== undefined;
  }

  /** Reserves a deleted blog's slug until its site is gone (migration 007); call in the delete's transaction. */
  async retireSlug(slug: string, blogId: string, now: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO retired_blog_slugs (slug, blog_id, retired_at) VALUES (?, ?, ?)
       ON CONFLICT (slug) DO UPDATE SET blog_id = excluded.blog_id, retired_at = excluded.retired_at`,
      [slug, blogId, now],
    );
  }

  async isSlugRetired(slug: string): Promise<boolean> {
    return (await this.sql.get<{ blog_id: string }>('SELECT blog_id FROM retired_blog_slugs WHERE slug = ?', [slug])) !== undefined;
  }

  /** Frees the slug once the deleted blog's objects and index are gone. */
  async releaseSlug(slug: string, blogId: string): Promise<void> {
    await this.sql.run('DELETE FROM retired_blog_slugs WHERE slug = ? AND blog_id = ?', [slug, blogId]);
  }

  async listByAccount(accountId: string): Promise<BlogWithDomain[]> {
    return (await this.sql.all<BlogRow>(this.sql.dialect === 'postgres' ? LIST_BY_ACCOUNT_PG : LIST_BY_ACCOUNT, [accountId])).map(toBlog);
  }

  async listAll(): Promise<BlogWithDomain[]> {
    return (await this.sql.all<BlogRow>(LIST_ALL)).map(toBlog);
  }

  async countByAccount(accountId: string): Promise<number> {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM blogs WHERE account_id = ?', [accountId]))?.n ?? 0;
  }

  async update(blog: Pick<Blog, 'id' | 'name' | 'description' | 'themeConfig' | 'discoverable' | 'updatedAt'>): Promise<void> {
    await this.sql.run('UPDATE blogs SET name = ?, description = ?, theme_config = ?, discoverable = ?, updated_at = ? WHERE id = ?', [
      blog.name,
      blog.description,
      JSON.stringify(blog.themeConfig),
      blog.discoverable ? 1 : 0,
      blog.updatedAt,
      blog.id,
    ]);
  }

  async delete(id: string): Promise<void> {
    await this.sql.run('DELETE FROM blogs WHERE id = ?', [id]);
  }
}
