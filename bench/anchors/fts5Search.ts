/**
 * The search anchor of issue 12: SQLite's own full-text search (FTS5, through better-sqlite3,
 * in-process) over the same posts and the same queries as Folio's index.
 *
 * - Bulk insert: every post in one transaction into an FTS5 table of the same five fields.
 * - A query answers what GET /v1/search answers: the top 20 by BM25 (column weights as Folio's
 *   fields: title 3, tags 2, description 1, body 1, code 0.5) and the exact count of matches.
 *   Words are ANDed, each quoted so no word is read as FTS5 syntax. FTS5's default tokenizer
 *   (unicode61) does not strip Korean particles, so its Korean results differ from Folio's;
 *   the work per query is what is compared. `searchTop` is the top 20 alone, without the count
 *   (less than Folio answers); the bench reports both.
 */
import Database from 'better-sqlite3';
import type { SearchDocument } from '../../src/search/searchTypes.js';
import { tokenize } from '../../src/search/tokenize.js';

export class Fts5Anchor {
  private readonly top;
  private readonly count;

  private constructor(private readonly db: Database.Database) {
    this.top = db.prepare<[string], { rowid: number }>(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 3.0, 2.0, 1.0, 1.0, 0.5) LIMIT 20`);
    this.count = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM docs WHERE docs MATCH ?`);
  }

  /** Creates the table at `path` (a new file) and inserts `docs`; returns the insert's wall time. */
  static build(path: string, docs: readonly SearchDocument[]): { anchor: Fts5Anchor; insertMs: number } {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE VIRTUAL TABLE docs USING fts5(title, tags, description, body, code)');
    const insert = db.prepare('INSERT INTO docs (title, tags, description, body, code) VALUES (?, ?, ?, ?, ?)');
    const started = performance.now();
    db.transaction(() => {
      for (const d of docs) insert.run(d.title, d.tags.join(' '), d.metaDescription, d.body, d.code);
    })();
    return { anchor: new Fts5Anchor(db), insertMs: performance.now() - started };
  }

  static open(path: string): Fts5Anchor {
    return new Fts5Anchor(new Database(path, { readonly: true }));
  }

  /** The query's words as an FTS5 expression, or null when it has none. */
  static expression(q: string): string | null {
    const words = [...new Set(tokenize(q))];
    return words.length === 0 ? null : words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
  }

  search(q: string): { total: number; top: number[] } {
    const expression = Fts5Anchor.expression(q);
    if (!expression) return { total: 0, top: [] };
    const top = this.top.all(expression).map((r) => r.rowid);
    return { total: this.count.get(expression)?.n ?? 0, top };
  }

  /** The top 20 alone, without the count: FTS5's cheapest form of the same query. */
  searchTop(q: string): number[] {
    const expression = Fts5Anchor.expression(q);
    return expression ? this.top.all(expression).map((r) => r.rowid) : [];
  }

  close(): void {
    this.db.close();
  }
}
