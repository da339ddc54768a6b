/**
 * Copies every row of a Folio database into another one of the same schema version, SQLite or
 * PostgreSQL on either side (issue #32): `folio database copy`, and backups and restores on
 * PostgreSQL. The source is read as of one snapshot, a bounded batch at a time; the target is
 * written in one transaction, so a copy that fails leaves it as empty as it was.
 */
import { JobsRepo } from '../jobsRepo.js';
import type { SqlClient, SqlReader, SqlTransaction, SqlValue } from '../sql/sqlClient.js';
import { parentsFirst, readSchema, type TableInfo } from './copySchema.js';
import type { SnapshotSource } from './snapshotSource.js';

/** A copy refused before anything was written: the message says why, in one line. */
export class CopyRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyRefusedError';
  }
}

/**
 * Tables not copied, and why: each is rebuilt, refilled or started afresh on the target. Tables
 * only one side has are not copied either (SQLite's FTS5 shadow tables discovery_terms_*, the
 * backup's own tables of images).
 */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  schema_migrations: 'each database records the migrations it applied itself',
  blog_leases: 'which node holds a blog for the next seconds; no node holds one on a new database',
  rate_windows: "the current windows' rate-limit counts, forgotten at a restart too",
  discovery_posts: "the discovery index is each database's own kind (FTS5, tsvector): a discovery job per discoverable blog fills it again",
  listing_snapshots: "a cache of each blog's listing, made again from the posts when it is missing",
};

/** Rows read and written at once; the parameters of one insert stay far below both databases' limits. */
const BATCH_ROWS = 100;
const BATCH_PARAMS = 8_000;
/**
 * About this much text and blobs per batch: SQLite's inserts and node-postgres' parsing of a
 * batch are synchronous, and a server copying (a scheduled backup) must keep answering. Batches
 * of long posts get fewer rows.
 */
const BATCH_BYTES = 256 * 1024;

export interface CopiedTable {
  table: string;
  rows: number;
}

export interface CopyResult {
  tables: CopiedTable[];
  /** Tables of either side that were not copied, with the reason. */
  skipped: { table: string; why: string }[];
  /** Discovery jobs queued on the target (beside the copied publish_jobs) to fill its discovery index. */
  discoveryJobs: number;
}

interface TablePlan {
  name: string;
  columns: string[];
  source: TableInfo;
  /** Identity columns of a PostgreSQL target among the copied columns (they need OVERRIDING SYSTEM VALUE). */
  identity: string[];
}

export async function copyDatabase(source: SnapshotSource, target: SqlClient, options: { now: string }): Promise<CopyResult> {
  const [from, to] = await Promise.all([readSchema(source), readSchema(target)]);
  const skipped: CopyResult['skipped'] = [];
  const shared: string[] = [];
  for (const name of new Set([...from.keys(), ...to.keys()])) {
    const why = NOT_COPIED[name] ?? (!from.has(name) || !to.has(name) ? `only the ${from.has(name) ? source.dialect : target.dialect} schema has it` : null);
    if (why) skipped.push({ table: name, why });
    else shared.push(name);
  }
  const order = parentsFirst(shared.sort(), (name) => [...(from.get(name)?.parents ?? []), ...(to.get(name)?.parents ?? [])]);
  const plans = order.map((name): TablePlan => {
    const sourceInfo = from.get(name)!;
    const targetInfo = to.get(name)!;
    // Columns both sides have: PostgreSQL's `seq` of blogs and posts is SQLite's rowid, not a column.
    const columns = targetInfo.columns.filter((column) => sourceInfo.columns.includes(column));
    const identity = targetInfo.identity.map((id) => id.column).filter((column) => columns.includes(column));
    return { name, columns, source: sourceInfo, identity };
  });

  const { tables, discoveryJobs } = await target.transaction(async (tx) => {
    await refuseNonEmpty(tx, plans);
    const triggers = await suspendTriggers(tx, order);
    const copied: CopiedTable[] = [];
    for (const plan of plans) copied.push({ table: plan.name, rows: await copyTable(source, tx, plan) });
    await triggers.restore();
    if (tx.dialect === 'postgres') await moveIdentitiesPast(tx, plans, to);
    const jobs = skipped.some((s) => s.table === 'discovery_posts') ? await queueDiscovery(tx, options.now) : 0;
    return { tables: copied, discoveryJobs: jobs };
  });

  // Checked against the snapshot, table by table, once the copy is committed.
  for (const { table, rows } of tables) {
    const expected = await count(source, table);
    const written = (await count(target, table)) - (table === 'publish_jobs' ? discoveryJobs : 0);
    if (expected !== rows || written !== rows) {
      throw new Error(`the copy of ${table} is incomplete: the source has ${expected} rows, ${rows} were copied and the target has ${written}`);
    }
  }
  return { tables, skipped: skipped.sort((a, b) => a.table.localeCompare(b.table)), discoveryJobs };
}

async function count(db: SnapshotSource | SqlClient, table: string): Promise<number> {
  return Number((await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${quote(table)}`))!.n);
}

/** Copying into a database that already holds Folio's rows would mix two installations, or fail half-way on a key. */
async function refuseNonEmpty(tx: SqlTransaction, plans: readonly TablePlan[]): Promise<void> {
  for (const { name } of plans) {
    if (await tx.get(`SELECT 1 AS one FROM ${quote(name)} LIMIT 1`)) throw notEmpty(name);
  }
}

function notEmpty(table: string): CopyRefusedError {
  return new CopyRefusedError(
    `the target database already holds Folio data (its ${table} table has rows); copy only into an empty database, so nothing is overwritten`,
  );
}

/** Refuses, as the copy would, a database that holds rows of any table the copy writes (checked before slower steps). */
export async function assertNoFolioRows(db: SqlReader): Promise<void> {
  for (const name of (await readSchema(db)).keys()) {
    if (name in NOT_COPIED) continue;
    if (await db.get(`SELECT 1 AS one FROM ${quote(name)} LIMIT 1`)) throw notEmpty(name);
  }
}

/**
 * Turns off, until `restore`, the row triggers of the copied tables: the post_changes log trigger
 * on posts would add a row per published post to the log that is copied too. PostgreSQL disables
 * them; SQLite cannot, so they are dropped and created again from their own text. Both in the
 * copy's transaction, so nothing of it outlives a failure.
 */
async function suspendTriggers(tx: SqlTransaction, tables: readonly string[]): Promise<{ restore(): Promise<void> }> {
  if (tx.dialect === 'postgres') {
    const rows = await tx.all<{ table_name: string; name: string }>(
      `SELECT c.relname AS table_name, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE NOT t.tgisinternal AND (t.tgtype & 1) = 1 AND c.relnamespace = current_schema()::regnamespace`,
    );
    const ours = rows.filter((row) => tables.includes(row.table_name));
    for (const row of ours) await tx.run(`ALTER TABLE ${quote(row.table_name)} DISABLE TRIGGER ${quote(row.name)}`);
    return {
      restore: async () => {
        for (const row of ours) await tx.run(`ALTER TABLE ${quote(row.table_name)} ENABLE TRIGGER ${quote(row.name)}`);
      },
    };
  }
  const rows = await tx.all<{ name: string; tbl_name: string; sql: string }>("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'");
  const ours = rows.filter((row) => tables.includes(row.tbl_name));
  for (const row of ours) await tx.run(`DROP TRIGGER ${quote(row.name)}`);
  return {
    restore: async () => {
      for (const row of ours) await tx.run(row.sql);
    },
  };
}

async function copyTable(source: SnapshotSource, tx: SqlTransaction, plan: TablePlan): Promise<number> {
  const { name, columns } = plan;
  const key = plan.source.orderKey;
  const keyAliases = key.map((_, i) => `__k${i}`);
  const select = `SELECT ${[...columns.map(quote), ...key.map((column, i) => `${quote(column)} AS ${keyAliases[i]}`)].join(', ')} FROM ${quote(name)}`;
  const keyList = key.map(quote).join(', ');
  const after = key.length === 1 ? `${keyList} > ?` : `(${keyList}) > (${key.map(() => '?').join(', ')})`;
  const maxRows = Math.max(1, Math.min(BATCH_ROWS, Math.floor(BATCH_PARAMS / columns.length)));
  let batch = Math.min(10, maxRows);
  const overriding = plan.identity.length > 0 ? ' OVERRIDING SYSTEM VALUE' : '';
  const rowPlaceholders = `(${columns.map(() => '?').join(', ')})`;
  let last: SqlValue[] | null = null;
  let copied = 0;
  for (;;) {
    const rows: Record<string, SqlValue>[] = await source.all<Record<string, SqlValue>>(
      `${select}${last ? ` WHERE ${after}` : ''} ORDER BY ${keyList} LIMIT ${batch}`,
      last ?? [],
    );
    if (rows.length === 0) return copied;
    const params: SqlValue[] = [];
    let bytes = 0;
    for (const row of rows) {
      for (const column of columns) {
        // BLOBs and BYTEA both arrive and bind as Buffers; text, numbers and NULL as they are.
        const value = row[column] ?? null;
        if (typeof value === 'string') {
          if (tx.dialect === 'postgres' && value.includes('\u0000')) throw nulRefused(plan, row, column);
          bytes += value.length;
        } else if (Buffer.isBuffer(value)) bytes += value.length;
        params.push(value);
      }
    }
    await tx.run(`INSERT INTO ${quote(name)} (${columns.map(quote).join(', ')})${overriding} VALUES ${rows.map(() => rowPlaceholders).join(', ')}`, params);
    copied += rows.length;
    batch = Math.max(1, Math.min(maxRows, Math.floor((rows.length * BATCH_BYTES) / Math.max(1, bytes))));
    const lastRow = rows[rows.length - 1]!;
    last = keyAliases.map((alias) => lastRow[alias] ?? null);
    // A turn of the event loop between batches: a server copying (a scheduled backup) keeps answering.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** PostgreSQL's text cannot hold U+0000, which SQLite's can: the copy stops before committing anything. */
function nulRefused(plan: TablePlan, row: Record<string, SqlValue>, column: string): CopyRefusedError {
  const keyColumns = plan.source.primaryKey.length > 0 ? plan.source.primaryKey : plan.source.orderKey;
  const rowKey = keyColumns.map((k, i) => `${k}=${JSON.stringify(row[k] ?? row[`__k${i}`] ?? null)}`).join(', ');
  return new CopyRefusedError(
    `${plan.name} row ${rowKey}: column ${column} holds the character U+0000 (NUL), which PostgreSQL cannot store; remove it from that row in SQLite, then copy again (nothing was copied)`,
  );
}

/** Identity sequences continue after the copied values, so the next row gets a new one. */
async function moveIdentitiesPast(tx: SqlTransaction, plans: readonly TablePlan[], to: Map<string, TableInfo>): Promise<void> {
  for (const plan of plans) {
    for (const { column } of to.get(plan.name)!.identity) {
      await tx.get(`SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT max(${quote(column)}) FROM ${quote(plan.name)}), 0) + 1, false) AS v`, [
        quote(plan.name),
        column,
      ]);
    }
  }
}

/**
 * The discovery index is not copied (NOT_COPIED): the target's own kind is filled by the
 * `discovery` job (publish/pipelines/indexDiscovery.ts) of each discoverable blog, which the
 * server runs once it starts.
 */
async function queueDiscovery(tx: SqlTransaction, now: string): Promise<number> {
  const blogs = await tx.all<{ id: string; slug: string }>('SELECT id, slug FROM blogs WHERE discoverable = 1 ORDER BY id');
  const jobs = new JobsRepo(tx);
  for (const blog of blogs) await jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'discovery', payload: {}, now });
  return blogs.length;
}

/** An identifier quoted for both databases (`key`, `position` and `at` are column names here). */
function quote(name: string): string {
  return name === 'rowid' ? name : `"${name.replaceAll('"', '""')}"`;
}
