/**
 * What a copy (copyDatabase.ts) learns of each side's schema: its tables, their columns, keys
 * and foreign keys, read from the database itself rather than listed by hand, so that a new
 * migration's table or column is copied without a change here.
 */
import type { SqlReader } from '../sql/sqlClient.js';

export interface TableInfo {
  name: string;
  columns: string[];
  /** The primary key's columns, in key order: what names a row in messages. */
  primaryKey: string[];
  /**
   * What the copy pages by (keyset) and inserts in the order of: SQLite's rowid (the insertion
   * order its repositories rely on) where there is one; on PostgreSQL the `seq` that stands in
   * for it (migrations/postgres/024_baseline.sql), else the primary key.
   */
  orderKey: string[];
  /** Tables its foreign keys point to. */
  parents: string[];
  /** PostgreSQL's identity columns (their sequences move past the copied values afterwards). */
  identity: { column: string; always: boolean }[];
}

/**
 * PostgreSQL's insertion order of the tables that have one: `seq`, an identity column. Posts page
 * by blog first, the index there is (posts_by_blog_seq): within a blog the order is the same.
 */
const POSTGRES_ORDER: Record<string, string[]> = { blogs: ['seq'], posts: ['blog_id', 'seq'] };

export async function readSchema(db: SqlReader): Promise<Map<string, TableInfo>> {
  const tables = db.dialect === 'sqlite' ? await sqliteTables(db) : await postgresTables(db);
  return new Map(tables.map((table) => [table.name, table]));
}

async function sqliteTables(db: SqlReader): Promise<TableInfo[]> {
  // Not SQLite's own tables (sqlite_sequence follows the copied keys by itself), nor the FTS5
  // table itself: its index is derived, and its shadow tables exist on SQLite only.
  const tables = await db.all<{ name: string; sql: string }>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
  );
  const out: TableInfo[] = [];
  for (const { name, sql } of tables) {
    const columns = await db.all<{ name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?) ORDER BY cid', [name]);
    const primaryKey = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const parents = await db.all<{ parent: string }>('SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(?)', [name]);
    const withoutRowid = /\)\s*WITHOUT\s+ROWID\s*;?\s*$/i.test(sql);
    out.push({
      name,
      columns: columns.map((c) => c.name),
      primaryKey,
      orderKey: withoutRowid ? primaryKey : ['rowid'],
      parents: parents.map((p) => p.parent),
      identity: [],
    });
  }
  return out;
}

async function postgresTables(db: SqlReader): Promise<TableInfo[]> {
  const columns = await db.all<{ table_name: string; column_name: string; is_identity: string; identity_generation: string | null }>(
    `SELECT table_name, column_name, is_identity, identity_generation FROM information_schema.columns
      WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const tables = await db.all<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const keys = await db.all<{ table_name: string; column_name: string }>(
    `SELECT c.relname AS table_name, a.attname AS column_name
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
      ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)`,
  );
  const parents = await db.all<{ table_name: string; parent: string }>(
    `SELECT DISTINCT c.relname AS table_name, p.relname AS parent
       FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class p ON p.oid = f.confrelid
      WHERE f.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`,
  );
  return tables.map(({ name }) => {
    const own = columns.filter((c) => c.table_name === name);
    const primaryKey = keys.filter((k) => k.table_name === name).map((k) => k.column_name);
    return {
      name,
      columns: own.map((c) => c.column_name),
      primaryKey,
      orderKey: POSTGRES_ORDER[name] ?? primaryKey,
      parents: parents.filter((p) => p.table_name === name).map((p) => p.parent),
      identity: own.filter((c) => c.is_identity === 'YES').map((c) => ({ column: c.column_name, always: c.identity_generation === 'ALWAYS' })),
    };
  });
}

/** `names` with every table after the tables it points to (foreign keys: parents first). */
export function parentsFirst(names: readonly string[], parentsOf: (name: string) => readonly string[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    if (placed.has(name) || !names.includes(name)) return;
    if (visiting.has(name)) throw new Error(`the foreign keys of ${name} form a cycle: no table order inserts its parents first`);
    visiting.add(name);
    for (const parent of parentsOf(name)) if (parent !== name) visit(parent);
    visiting.delete(name);
    placed.add(name);
    order.push(name);
  };
  for (const name of names) visit(name);
  return order;
}
