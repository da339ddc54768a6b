/**
 * What the PostgreSQL repository suites share (test/postgres/*Repositories.test.ts): one
 * server per test file, and a migrated database per test with an account, its blog and a
 * published post in it.
 */
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import type { Post } from '../../src/domain/post.js';
import { migratePostgres } from '../../src/db/sql/postgresMigrations.js';
import { PostgresClient } from '../../src/db/sql/postgresClient.js';
import { startPostgres, type Postgres } from './postgres.js';

export const T0 = '2026-03-24T10:00:00.000Z';
export const LATER = '2026-03-24T11:00:00.000Z';

export interface PostgresRepos {
  /** The file's server (started in beforeAll). */
  server(): Postgres;
  /** A migrated database with account a1, its blog b1 (slug `one`) and post p1 (`first`, published at T0). */
  seeded(options?: { icuLocale?: string }): Promise<PostgresClient>;
  /** seeded(), with the database's URL (for a second node's connections). */
  seededDatabase(options?: { icuLocale?: string }): Promise<{ sql: PostgresClient; url: string }>;
}

/** Starts PostgreSQL for the file (beforeAll) and stops it afterwards. */
export function usePostgres(): PostgresRepos {
  let server: Postgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => server?.stop());
  const seededDatabase = async (options: { icuLocale?: string } = {}) => {
    let url = await server.createDatabase();
    if (options.icuLocale) url = await icuDatabase(url, options.icuLocale);
    expect((await migratePostgres(url))[0]).toBe('024_baseline.sql');
    const sql = new PostgresClient(url);
    onTestFinished(() => sql.close());
    await sql.run("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ('a1', 'a@example.com', 'creator', ?, ?)", [T0, T0]);
    await sql.run("INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('b1', 'a1', 'one', 'One', ?, ?)", [T0, T0]);
    await sql.run(
      `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, status, published_at, created_at, updated_at)
         VALUES ('p1', 'b1', 'First', 'first', 'x', '<p>x</p>', 'x', 'published', ?, ?, ?)`,
      [T0, T0, T0],
    );
    return { sql, url };
  };
  return { server: () => server, seeded: async (options = {}) => (await seededDatabase(options)).sql, seededDatabase };
}

/**
 * A database next to `url` whose default collation is ICU's `locale` (the test cluster's own is
 * C): what sorts or compares text by the database's collation would show it.
 */
async function icuDatabase(url: string, locale: string): Promise<string> {
  const target = new URL(url);
  const name = `${target.pathname.slice(1)}_icu`;
  const admin = new PostgresClient(Object.assign(new URL(url), { pathname: '/postgres' }).href);
  try {
    await admin.run(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${locale}' LOCALE 'C'`);
  } finally {
    await admin.close();
  }
  target.pathname = `/${name}`;
  return target.href;
}

/** A post of blog b1 written at T0; `overrides` name what the test cares about. */
export function newPost(overrides: Partial<Post> & Pick<Post, 'id' | 'slug'>): Post {
  return {
    blogId: 'b1',
    title: overrides.slug,
    contentMd: `# ${overrides.slug}`,
    contentHtml: `<h1>${overrides.slug}</h1>`,
    metaDescription: overrides.slug,
    metaExplicit: false,
    ogImageUrl: null,
    tags: [],
    status: 'draft',
    publishedAt: null,
    scheduledAt: null,
    createdAt: T0,
    updatedAt: T0,
    textCounts: null,
    ...overrides,
  };
}
