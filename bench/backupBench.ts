/**
 * Backup and recovery figures for the README (`npm run bench -- --only backup`): with a
 * 10,000-post database, the time of `folio backup` (gzip), `folio restore` into an empty data
 * dir, and `folio site rebuild --all` there, each as the operator runs it (the CLI in its own
 * process). The anchor is SQLite's own copy of the same file (`VACUUM INTO`, one thread, no
 * compression), measured in the same run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { ImportedBlog } from './importCorpus.js';
import type { BenchRow } from './table.js';

const CLI = fileURLToPath(new URL('../src/cliMain.js', import.meta.url));

function timed(args: string[], env: Record<string, string>): { ms: number; out: string } {
  const started = performance.now();
  const out = execFileSync(process.execPath, ['--openssl-legacy-provider', CLI, ...args], {
    env: { ...process.env, FOLIO_LOG_LEVEL: 'warn', ...env },
    maxBuffer: 1 << 24,
  }).toString();
  return { ms: performance.now() - started, out };
}

export async function runBackupBench(blog: ImportedBlog, posts: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-backup-'));
  const dbFile = join(blog.dataDir, 'folio.db');

  const anchorStarted = performance.now();
  const db = new Database(dbFile);
  db.prepare('VACUUM INTO ?').run(join(dir, 'anchor.db'));
  db.close();
  const anchorMs = performance.now() - anchorStarted;

  const file = join(dir, 'folio.db.gz');
  const backup = timed(['backup', file], { FOLIO_DATA_DIR: blog.dataDir });
  const target = join(dir, 'restored');
  const restore = timed(['restore', file], { FOLIO_DATA_DIR: target });
  const rebuild = timed(['site', 'rebuild', '--all'], { FOLIO_DATA_DIR: target });

  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;
  rows.push({
    area: 'backup',
    measure: `database of ${posts} posts / its gzip backup`,
    value: `${mb(statSync(join(dir, 'anchor.db')).size)} / ${mb(statSync(file).size)}`,
  });
  rows.push({ area: 'backup', measure: 'anchor: SQLite VACUUM INTO (no check, no gzip)', value: `${(anchorMs / 1000).toFixed(1)} s` });
  rows.push({
    area: 'backup',
    measure: 'folio backup file.gz (copy, integrity check, gzip)',
    value: `${(backup.ms / 1000).toFixed(1)} s (${(backup.ms / anchorMs).toFixed(1)}× anchor)`,
  });
  rows.push({ area: 'backup', measure: 'folio restore file.gz (gunzip, check)', value: `${(restore.ms / 1000).toFixed(1)} s` });
  rows.push({ area: 'backup', measure: `folio site rebuild --all (${posts} posts, fs, with search)`, value: `${(rebuild.ms / 1000).toFixed(1)} s` });
  rows.push({ area: 'backup', measure: 'load average during the section (1 min)', value: loadavg()[0]!.toFixed(2) });
  return rows;
}
