/**
 * The discovery index in SQLite (migration 020): FTS5 over the terms our own tokenizer made
 * (search/discovery/discoveryTerms.ts), one row per post, and a query that joins the live
 * `posts` and `blogs` rows, so drafts, unpublished or deleted posts and blogs that opted out
 * never show, whatever the index still holds.
 */
import type { Language } from '../domain/language.js';
import { discoveryMatch, filterTokens, termsText } from '../search/discovery/discoveryTerms.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryDocument, type DiscoveryHit, type DiscoveryIndex, type DiscoveryQuery } from '../search/discovery/ports.js';
import { atomically, type SqlScope, type SqlTransaction } from './sql/sqlClient.js';

interface HitRow {
  title: string;
  slug: string;
  meta_description: string;
  tags: string;
  lang: Language;
  published_at: string;
  blog_slug: string;
  blog_name: string;
  hostname: string | null;
  domain_status: string | null;
}

/** Posts published in the same second share this many row ids (docs/search.md#discovery). */
const SLOTS_PER_SECOND = 2 ** 20;

// A match is visible through the live rows, joined by key: FTS5 is the outer loop and walks the
// match newest first (rowid order), so a page stops after its rows.
const VISIBLE = `
  FROM discovery_terms t
  JOIN discovery_posts d ON d.id = t.rowid
  JOIN posts p ON p.id = d.post_id AND p.status = 'published'
  JOIN blogs b ON b.id = p.blog_id AND b.discoverable = 1
  WHERE discovery_terms MATCH ?`;

const PAGE_SQL = `SELECT p.title, p.slug, p.meta_description, p.tags, d.lang, p.published_at, b.slug AS blog_slug, b.name AS blog_name,
        (SELECT hostname FROM domains WHERE blog_id = b.id) AS hostname, (SELECT status FROM domains WHERE blog_id = b.id) AS domain_status
 ${VISIBLE}
 ORDER BY t.rowid DESC
 LIMIT ? OFFSET ?`;
const COUNT_SQL = `SELECT COUNT(*) AS n FROM (SELECT 1 ${VISIBLE} ORDER BY t.rowid DESC LIMIT ?)`;

/** SQLite's implementation of the discovery index (FTS5): PostgreSQL needs its own behind the same port. */
export class DiscoveryRepo implements DiscoveryIndex {
  constructor(private readonly sql: SqlScope) {}

  async upsert(docs: readonly DiscoveryDocument[]): Promise<void> {
    if (docs.length === 0) return;
    // The terms are made before the transaction: tokenizing is the costly part.
    const rows = docs.map((doc) => ({
      ...doc,
      terms: {
        title: termsText(doc.title),
        tags: doc.tags.map(termsText).join(' '),
        description: termsText(doc.description),
        body: termsText(doc.body),
        code: termsText(doc.code),
        filters: filterTokens(doc.lang, doc.tags),
      },
    }));
    await atomically(this.sql, async (tx) => {
      for (const row of rows) {
        // A post's entry is replaced whole (the trigger deletes its terms), never patched.
        await tx.run('DELETE FROM discovery_posts WHERE post_id = ?', [row.postId]);
        const id = await freeId(tx, row.publishedAt);
        await tx.run('INSERT INTO discovery_posts (id, post_id, blog_id, lang) VALUES (?, ?, ?, ?)', [id, row.postId, row.blogId, row.lang]);
        const { title, tags, description, body, code, filters } = row.terms;
        await tx.run('INSERT INTO discovery_terms (rowid, title, tags, description, body, code, filters) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          id,
          title,
          tags,
          description,
          body,
          code,
          filters,
        ]);
      }
    });
  }

  async remove(postIds: readonly string[]): Promise<void> {
    if (postIds.length === 0) return;
    await atomically(this.sql, async (tx) => {
      for (const postId of postIds) await tx.run('DELETE FROM discovery_posts WHERE post_id = ?', [postId]);
    });
  }

  async prune(blogId: string, keep: ReadonlySet<string>): Promise<void> {
    await this.sql.run('DELETE FROM discovery_posts WHERE blog_id = ? AND post_id NOT IN (SELECT value FROM json_each(?))', [
      blogId,
      JSON.stringify([...keep]),
    ]);
  }

  async search(query: DiscoveryQuery): Promise<{ hits: DiscoveryHit[]; total: number }> {
    const match = discoveryMatch(query.q, { tag: query.tag, lang: query.lang });
    if (match === null) return { hits: [], total: 0 };
    const total = (await this.sql.get<{ n: number }>(COUNT_SQL, [match, MAX_DISCOVERY_RESULTS]))?.n ?? 0;
    const offset = (query.page - 1) * query.perPage;
    if (offset >= total) return { hits: [], total };
    const limit = Math.min(query.perPage, MAX_DISCOVERY_RESULTS - offset);
    return { total, hits: (await this.sql.all<HitRow>(PAGE_SQL, [match, limit, offset])).map(toHit) };
  }
}

/** A row id in the post's second (newest first is rowid order), free in this transaction. */
async function freeId(tx: SqlTransaction, publishedAt: string): Promise<number> {
  const base = Math.floor(Date.parse(publishedAt) / 1000) * SLOTS_PER_SECOND;
  const last =
    (await tx.get<{ id: number | null }>('SELECT MAX(id) AS id FROM discovery_posts WHERE id BETWEEN ? AND ?', [base, base + SLOTS_PER_SECOND - 1]))?.id ??
    null;
  if (last === null) return base;
  if (last < base + SLOTS_PER_SECOND - 1) return last + 1;
  // A million posts in one second: this one sorts as the oldest rather than failing.
  return ((await tx.get<{ id: number | null }>('SELECT MIN(id) AS id FROM discovery_posts'))?.id ?? base) - 1;
}

function toHit(row: HitRow): DiscoveryHit {
  return {
    title: row.title,
    slug: row.slug,
    metaDescription: row.meta_description,
    tags: JSON.parse(row.tags) as string[],
    lang: row.lang,
    publishedAt: row.published_at,
    blog: { slug: row.blog_slug, name: row.blog_name, customDomain: row.hostname, domainActive: row.domain_status === 'active' },
  };
}
