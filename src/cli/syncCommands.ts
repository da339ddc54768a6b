/**
 * `folio push <dir>` and `folio pull <dir>` (docs/cli.md): a folder of Markdown files with front
 * matter kept in step with a blog, through the HTTP API of FOLIO_API_URL with FOLIO_API_KEY
 * (apiClientEnv.ts). Progress goes to stderr, the summary to stdout; the exit status is 1 when
 * any file failed (each listed with its file and the API's or the parser's message).
 */
import { parseArgs } from 'node:util';
import type { FolioClient } from '../client/folioClient.js';
import { pull } from '../sync/pull.js';
import { push, type PushReport } from '../sync/push.js';
import { apiClientFromEnv } from './apiClientEnv.js';
import { CommandError, UsageError } from './cliErrors.js';
import { progressBar } from './progressBar.js';

/** The blog named by `--blog` (a slug or an id) or FOLIO_BLOG_ID, among the key's blogs. */
export async function resolveBlog(client: FolioClient, named: string | undefined): Promise<{ id: string; slug: string }> {
  if (!named) throw new UsageError('name the blog with --blog <slug-or-id> (or set FOLIO_BLOG_ID)');
  const blogs = (await client.listBlogs()).data;
  const blog = blogs.find((b) => b.id === named || b.slug === named);
  if (!blog) throw new CommandError(`no blog "${named}" among this key's blogs (${blogs.map((b) => b.slug).join(', ') || 'none'})`);
  return blog;
}

function summary(report: PushReport, dryRun: boolean, seconds: string): string {
  const would = dryRun ? 'would be ' : '';
  const changed = report.created + report.updated + report.deleted + report.uploaded;
  const parts = [
    `${report.created} ${would}created`,
    `${report.updated} ${would}updated`,
    `${report.deleted} ${would}deleted`,
    `${report.uploaded} images uploaded`,
    `${report.unchanged} unchanged`,
    `${report.failures.length} failed`,
  ];
  const head = changed === 0 && report.failures.length === 0 ? 'no changes' : parts.join(', ');
  const orphans =
    report.orphans.length > 0
      ? `\n${report.orphans.length} posts of the blog have no file (kept; --delete-missing deletes them): ${report.orphans.slice(0, 10).join(', ')}${report.orphans.length > 10 ? ', …' : ''}`
      : '';
  return `${head}${dryRun ? ' (dry run: nothing was sent)' : ''} (${seconds} s)${orphans}`;
}

export async function syncCommand(command: 'push' | 'pull', args: string[], env: Record<string, string | undefined>): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { blog: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'delete-missing': { type: 'boolean' }, verbose: { type: 'boolean' } },
  });
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError(`folio ${command} takes one folder`);
  if (command === 'pull' && (values['dry-run'] || values['delete-missing'] || values.verbose))
    throw new UsageError('--dry-run, --delete-missing and --verbose are options of push');
  const { client, blogId } = apiClientFromEnv(env);
  const blog = await resolveBlog(client, values.blog ?? blogId);
  const started = performance.now();
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(1);

  if (command === 'pull') {
    const report = await pull(client, blog.id, dir, progressBar(`pulling ${blog.slug}`));
    process.stdout.write(`pulled ${report.written} post${report.written === 1 ? '' : 's'} of ${blog.slug} into ${dir} in ${seconds()} s\n`);
    return 0;
  }
  const dryRun = values['dry-run'] === true;
  const report = await push(client, blog.id, dir, {
    dryRun,
    deleteMissing: values['delete-missing'] === true,
    onProgress: progressBar(`pushing to ${blog.slug}`),
    // The plan of a dry run is its output; a real run lists its changes with --verbose.
    ...(dryRun || values.verbose ? { onChange: (line: string) => process.stdout.write(`${line}\n`) } : {}),
  });
  for (const warning of report.warnings) process.stderr.write(`folio: warning: ${warning.file}: ${warning.message}\n`);
  for (const failure of report.failures) process.stderr.write(`folio: ${failure.file}: ${failure.message}\n`);
  process.stdout.write(`${summary(report, dryRun, seconds())}\n`);
  return report.failures.length > 0 ? 1 : 0;
}
