/**
 * The discovery index in PostgreSQL (migrations/postgres/024_baseline.sql): one `discovery_posts`
 * row per post with its terms in a `tsvector` and its filter tokens in a `text[]`, each under a
 * GIN index. The terms are the ones SQLite's FTS5 table holds (search/discovery/discoveryTerms.ts),
 * made into a tsvector by array_to_tsvector, so no text search parser or dictionary touches them:
 * a query matches whole terms, every one of them, no prefixes, as on SQLite. The query joins the
 * live `posts` and `blogs` rows, so drafts, unpublished or deleted posts and blogs that opted out
 * never show, whatever the index still holds.
 */
import { discoveryCriteria, filterTokenList, termsText } from '../search/discovery/discoveryTerms.js';
import { MAX_DISCOVERY_RESULTS, type DiscoveryDocument, type DiscoveryHit, type DiscoveryIndex, type DiscoveryQuery } from '../search/discovery/ports.js';
import { freeId, HIT_COLUMNS, type HitRow, toHit } from './discoveryRows.js';
import { atomically, type SqlScope } from './sql/sqlClient.js';

// Terms and filter tokens travel as one space-separated text each (the seam binds no arrays):
// neither ever holds a space (terms are letters, digits and marks; tokens ASCII letters and digits).
const TERMS = `array_to_tsvector(array_remove(string_to_array(?, ' '), ''))`;
const TOKENS = `array_remove(string_to_array(?, ' '), '')`;

const INSERT_SQL = `INSERT INTO discovery_posts (id, post_id, blog_id, lang, terms, filters) VALUES (?, ?, ?, ?, ${TERMS}, ${TOKENS})`;

// A match is visible through the live rows, joined by key. The planner walks either the GIN
// index (a rare word, a filter) or the primary key newest first (a word most posts hold).
const MATCHES = `
  FROM discovery_posts d
  JOIN posts p ON p.id = d.post_id AND p.status = 'published'
  JOIN blogs b ON b.id = p.blog_id AND b.discoverable = 1
  WHERE d.terms @@ ?::tsquery`;
const FILTERED = `${MATCHES} AND d.filters @> ${TOKENS}`;

const pageSql = (from: string): string => `SELECT ${HIT_COLUMNS}${from}\n ORDER BY d.id DESC\n LIMIT ? OFFSET ?`;
// Counting the first MAX_DISCOVERY_RESULTS matches in any order counts as many as in date order.
const countSql = (from: string): string => `SELECT COUNT(*) AS n FROM (SELECT 1${from}\n LIMIT ?) AS m`;
/** The search's statements (exported for the test that reads their plans). */
export const SEARCH_SQL = {
  page: pageSql(MATCHES),
  count: countSql(MATCHES),
  filteredPage: pageSql(FILTERED),
  filteredCount: countSql(FILTERED),
};

/** PostgreSQL's implementation of the discovery index, the same port as SQLite's (discoveryRepo.ts). */
export class PostgresDiscoveryRepo implements DiscoveryIndex {
  constructor(private readonly sql: SqlScope) {}

  async upsert(docs: readonly DiscoveryDocument[]): Promise<void> {
    if (docs.length === 0) return;
    // The terms are made before the transaction: tokenizing is the costly part.
    const rows = docs.map((doc) => ({
      doc,
      terms: distinctTerms([doc.title, ...doc.tags, doc.description, doc.body, doc.code]),
      filters: filterTokenList(doc.lang, doc.tags).join(' '),
    }));
    await atomically(this.sql, async (tx) => {
      for (const { doc, terms, filters } of rows) {
        // A post's entry is replaced whole, never patched: an edit takes a new id, at the front of its second.
        await tx.run('DELETE FROM discovery_posts WHERE post_id = ?', [doc.postId]);
        const id = await freeId(tx, doc.publishedAt);
        await tx.run(INSERT_SQL, [id, doc.postId, doc.blogId, doc.lang, terms, filters]);
      }
    });
  }

  async remove(postIds: readonly string[]): Promise<void> {
    if (postIds.length === 0) return;
    await this.sql.run('DELETE FROM discovery_posts WHERE post_id IN (SELECT json_array_elements_text(?::json))', [JSON.stringify(postIds)]);
  }

  async prune(blogId: string, keep: ReadonlySet<string>): Promise<void> {
    await this.sql.run('DELETE FROM discovery_posts WHERE blog_id = ? AND post_id NOT IN (SELECT json_array_elements_text(?::json))', [
      blogId,
      JSON.stringify([...keep]),
    ]);
  }

  async search(query: DiscoveryQuery): Promise<{ hits: DiscoveryHit[]; total: number }> {
    const criteria = discoveryCriteria(query.q, { tag: query.tag, lang: query.lang });
    if (criteria === null) return { hits: [], total: 0 };
    const filtered = criteria.filters.length > 0;
    const match: string[] = [tsquery(criteria.terms)];
    if (filtered) match.push(criteria.filters.join(' '));
    const total = (await this.sql.get<{ n: number }>(filtered ? SEARCH_SQL.filteredCount : SEARCH_SQL.count, [...match, MAX_DISCOVERY_RESULTS]))?.n ?? 0;
    const offset = (query.page - 1) * query.perPage;
    if (offset >= total) return { hits: [], total };
    const limit = Math.min(query.perPage, MAX_DISCOVERY_RESULTS - offset);
    return { total, hits: (await this.sql.all<HitRow>(filtered ? SEARCH_SQL.filteredPage : SEARCH_SQL.page, [...match, limit, offset])).map(toHit) };
  }
}

/**
 * A tsvector holds at most 1 MB of lexemes, and array_to_tsvector does not check it (the offsets
 * would overflow): a post with more distinct terms than that keeps the first ones, title first.
 */
const MAX_TERM_BYTES = 1_000_000;

/** The distinct terms of these texts, in order, space-separated, within MAX_TERM_BYTES. */
function distinctTerms(texts: readonly string[]): string {
  const terms = new Set<string>();
  let bytes = 0;
  for (const text of texts) {
    for (const term of termsText(text).split(' ')) {
      if (term === '' || terms.has(term)) continue;
      bytes += Buffer.byteLength(term);
      if (bytes > MAX_TERM_BYTES) return [...terms].join(' ');
      terms.add(term);
    }
  }
  return [...terms].join(' ');
}

/**
 * Every term, quoted, joined by AND: `'otter' & '배'`. Quoted lexemes are taken as written (a
 * tsquery cast normalizes nothing) and no `:*` is added, so nothing matches by prefix; quotes and
 * backslashes are escaped, though terms never hold them.
 */
export function tsquery(terms: readonly string[]): string {
  return terms.map((term) => `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(' & ');
}
