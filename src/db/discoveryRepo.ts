/**
 * The discovery index in SQLite (migration 020): FTS5 over the terms our own tokenizer made
 * (search/discovery/discoveryTerms.ts), one row per post, and a query that joins the live
 * `posts` and `blogs` rows, so drafts, unpublished or deleted posts and blogs that opted out
 * never show, whatever the index still holds.
 */
import { discoveryMatch, filterTokens, termsText } from '../search/discovery/discoveryTerms.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryDocument, type DiscoveryHit, type DiscoveryIndex, type DiscoveryQuery } from '../search/discovery/ports.js';
import { freeId, HIT_COLUMNS, type HitRow, toHit } from './discoveryRows.js';
import { atomically, type SqlScope } from './sql/sqlClient.js';

// A match is visible through the live rows, joined by key: FTS5 is the outer loop and walks the
// match newest first (rowid order), so a page stops after its rows.
const VISIBLE = `
  FROM discovery_terms t
  JOIN discovery_posts d ON d.id = t.rowid
  JOIN posts p ON p.id = d.post_id AND p.status = 'published'
  JOIN blogs b ON b.id = p.blog_id AND b.discoverable = 1
  WHERE discovery_terms MATCH ?`;

const PAGE_SQL = `SELECT ${HIT_COLUMNS}
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
