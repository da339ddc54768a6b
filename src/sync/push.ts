/**
 * `folio push <dir>`: makes the blog's posts what the folder's Markdown files say (docs/cli.md),
 * through the HTTP API like any other client (src/client). Per file: create the post, or update
 * what differs, and move it to the status its front matter asks for; unchanged posts cost no
 * request beyond the listing (localFolder.ts, the state file). Posts without a file are deleted
 * only with `deleteMissing`. Local images a post references are uploaded once (by content hash)
 * and the post points at their media URLs.
 *
 * A failure of one file (front matter, or the API's answer) is recorded with the file and the
 * message, and the others go on; the caller exits non-zero when any failed. A folder from Hugo or
 * Jekyll keeps its dates and old addresses (generatorFields.ts); what cannot be carried over (a
 * shortcode, a layout) is a warning naming the file. A dry run checks every request it would
 * send as the API will (requestCheck.ts).
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FolioApiError, type FolioClient, type Post, type PostUpdate } from '../client/folioClient.js';
import { FrontMatterError, parsePostFile, type PostFile } from './frontMatter.js';
import { pathMeaning, unrenderedTags } from './generatorFields.js';
import { refusalOf } from './requestCheck.js';
import {
  fileHash,
  imageType,
  localImages,
  markdownFiles,
  postHash,
  readState,
  slugFromFileName,
  withMediaUrls,
  writeState,
  type SyncState,
} from './localFolder.js';
import { listAllPosts, toPostFile } from './remotePosts.js';
import { changesOf, createBody, normalizedAliases, statusMatches, updateBody, type Desired } from './pushChanges.js';

export interface PushOptions {
  dryRun?: boolean;
  deleteMissing?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** One line per change (or planned change, in a dry run). */
  onChange?: (line: string) => void;
}

export interface PushReport {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  uploaded: number;
  /** Posts on the blog without a file, left alone (no deleteMissing). */
  orphans: string[];
  failures: { file: string; message: string }[];
  /** What a file had that the blog will not show as its author meant (a shortcode, a layout). */
  warnings: { file: string; message: string }[];
}

export async function push(client: FolioClient, blogId: string, dir: string, options: PushOptions = {}): Promise<PushReport> {
  const report: PushReport = { created: 0, updated: 0, unchanged: 0, deleted: 0, uploaded: 0, orphans: [], failures: [], warnings: [] };
  const say = options.onChange ?? (() => {});
  const state = await readState(dir, blogId);
  const remote = new Map((await listAllPosts(client, blogId)).map((p) => [p.slug, p]));
  const files = await markdownFiles(dir);
  const seen = new Map<string, string>();
  const aliasesSeen = new Map<string, string>();
  // Each file's failure, by its place in the folder: requests in flight finish out of order.
  const failures: { at: number; file: string; message: string }[] = [];
  const sending = new Set<Promise<void>>();
  let apiGone = false;

  for (const [i, file] of files.entries()) {
    options.onProgress?.(i, files.length);
    if (apiGone) break; // the API is gone: the rest would fail the same way
    // A window of requests in flight: the server folds a blog's publishes that arrive together
    // into one render of the pages they share (docs/publishing.md#coalesced-publishing).
    while (sending.size >= PUSH_WINDOW) await Promise.race(sending);
    try {
      const where = pathMeaning(file);
      if (where.section) {
        report.warnings.push({ file, message: 'a Hugo section page (_index.md) is not a post: skipped' });
        continue;
      }
      const { warnings, ...parsed } = parsePostFile(file, await readFile(join(dir, file), 'utf8'));
      const slug = parsed.slug ?? slugFromFileName(`${where.name}.md`);
      if (!slug) throw new FrontMatterError(file, 2, `no slug: give one in the front matter (the file name ${basename(file)} makes none)`);
      const other = seen.get(slug);
      if (other) throw new FrontMatterError(file, 2, `slug "${slug}" is also the slug of ${other}`);
      seen.set(slug, file);
      if (where.draft && parsed.status !== 'draft') {
        // Jekyll never publishes `_drafts/`, whatever the front matter says.
        parsed.status = 'draft';
        parsed.scheduledAt = undefined;
        delete parsed.publishedAt;
      }
      if (parsed.publishedAt === undefined && where.date !== undefined && parsed.status === 'published') parsed.publishedAt = where.date;
      const tags = unrenderedTags(parsed.content);
      if (tags.length > 0) warnings.push(`shortcodes or Liquid tags Folio cannot render, shown as literal text: ${tags.join(', ')}`);
      for (const message of warnings) report.warnings.push({ file, message });
      const aliasClash = claimAliases(aliasesSeen, file, slug, parsed.aliases ?? [], seen, remote);
      if (aliasClash) throw new FrontMatterError(file, 2, aliasClash);
      const local: Desired = { ...(await uploadImages(client, blogId, dir, file, parsed, state, options.dryRun === true, report)), slug };
      const hash = postHash(local);
      const summary = remote.get(slug);
      const recorded = state.posts[slug];
      if (summary && recorded?.hash === hash && recorded.updatedAt === summary.updated_at) {
        report.unchanged++;
        continue;
      }
      const current = summary ? await client.getPost(slug, blogId) : null;
      const changes = current ? changesOf({ ...toPostFile(current), slug }, local) : null;
      if (current && changes && Object.keys(changes).length === 0 && statusMatches(current, local)) {
        report.unchanged++;
        state.posts[slug] = { hash, updatedAt: current.updated_at };
        continue;
      }
      const change = `${current ? 'update' : 'create'} ${file} (${slug}${current && !statusMatches(current, local) ? `: ${current.status} → ${local.status}` : ''})`;
      if (options.dryRun) {
        // A change of status alone sends no PUT, only the transition, which has no body.
        const body = current ? updateBody(current, changes ?? {}) : null;
        const refusal =
          body === null
            ? refusalOf('create', createBody(local), local.status === 'scheduled' ? 'draft' : local.status)
            : Object.keys(body).length === 0
              ? null
              : refusalOf('update', body, local.status);
        // A file the API would refuse is listed once, as failing, not also as planned.
        if (refusal) throw new DryRunRefusal(refusal);
        say(`would ${change}`);
        if (current) report.updated++;
        else report.created++;
        continue;
      }
      say(change);
      const send = async (): Promise<void> => {
        try {
          const updatedAt = current ? await update(client, blogId, current, local, changes ?? {}) : await create(client, blogId, local);
          if (current) report.updated++;
          else report.created++;
          state.posts[slug] = { hash, updatedAt };
        } catch (err) {
          failures.push({ at: i, file, message: failureMessage(err) });
          if (err instanceof FolioApiError && err.status === 0) apiGone = true;
        }
      };
      const sent: Promise<void> = send().finally(() => sending.delete(sent));
      sending.add(sent);
    } catch (err) {
      failures.push({ at: i, file, message: failureMessage(err) });
      if (err instanceof FolioApiError && err.status === 0) apiGone = true;
    }
  }
  await Promise.all(sending);
  for (const { file, message } of failures.sort((a, b) => a.at - b.at)) report.failures.push({ file, message });
  options.onProgress?.(files.length, files.length);

  // By slug: the listing's order follows publish times, which posts pushed together can share.
  for (const slug of [...remote.keys()].sort()) {
    if (seen.has(slug)) continue;
    if (!options.deleteMissing) {
      report.orphans.push(slug);
      continue;
    }
    say(`${options.dryRun ? 'would ' : ''}delete ${slug} (no file)`);
    if (options.dryRun) {
      report.deleted++;
      continue;
    }
    try {
      await client.deletePost(slug, blogId);
      delete state.posts[slug];
      report.deleted++;
    } catch (err) {
      report.failures.push({ file: `(post ${slug})`, message: err instanceof FolioApiError ? `${err.code}: ${err.message}` : String(err) });
    }
  }
  if (!options.dryRun) await writeState(dir, state);
  return report;
}

/**
 * Creates and updates in flight at once: a server folds the ones that wait together into one
 * batch, so a wider window means fewer, larger batches. A batch of 16 posts (a window of 32)
 * still wrote more shared pages (tag pages, feeds, home, sitemap) than post pages; 128 gave
 * 0.82–0.91× the wall time of a 1,000-post push (docs/performance.md).
 */
const PUSH_WINDOW = 128;

function failureMessage(err: unknown): string {
  if (err instanceof FrontMatterError) return `line ${err.line}: ${err.problem}`;
  if (err instanceof FolioApiError) return `${err.code}: ${err.message}`;
  if (err instanceof DryRunRefusal) return `the API would refuse it: ${err.message}`;
  return String(err);
}

/**
 * The post's `updated_at` after the writes, for the state file. A create's answer says it (a new
 * post's is its `created_at`), as does a PUT's: no GET after them, a round trip per file saved.
 * A transition's answer does not, so the post is read after one.
 */
async function create(client: FolioClient, blogId: string, local: Desired): Promise<string> {
  const created = await client.createPost(createBody(local), blogId);
  if (local.status !== 'scheduled') return created.created_at;
  await client.schedulePost(local.slug, local.scheduledAt ?? '', blogId);
  return (await client.getPost(local.slug, blogId)).updated_at;
}

async function update(client: FolioClient, blogId: string, current: Post, local: Desired, changes: PostUpdate): Promise<string> {
  const body = updateBody(current, changes);
  let updatedAt = current.updated_at;
  if (Object.keys(body).length > 0) updatedAt = (await client.updatePost(local.slug, body, blogId)).updated_at;
  if (statusMatches(current, local) || body.status === 'published') return updatedAt;
  if (local.status === 'published') await client.publishPost(local.slug, blogId);
  else {
    if (current.status !== 'draft') await client.unpublishPost(local.slug, blogId);
    if (local.status === 'scheduled') await client.schedulePost(local.slug, local.scheduledAt ?? '', blogId);
  }
  return (await client.getPost(local.slug, blogId)).updated_at;
}

/** A request the dry run found the API would refuse. */
class DryRunRefusal extends Error {}

/**
 * Records the file's aliases; the problem when one is another file's alias or another post's
 * address (the API's 409), checked before anything is sent.
 */
function claimAliases(
  taken: Map<string, string>,
  file: string,
  slug: string,
  aliases: readonly string[],
  slugs: ReadonlyMap<string, string>,
  remote: ReadonlyMap<string, unknown>,
): string | null {
  for (const path of normalizedAliases(aliases)) {
    const holder = taken.get(path);
    if (holder !== undefined && holder !== file) return `alias "${path}" is also an alias of ${holder}`;
    const aliasSlug = /^\/([^/]+)\/$/.exec(path)?.[1];
    if (aliasSlug !== undefined && aliasSlug !== slug && (slugs.has(aliasSlug) || remote.has(aliasSlug)))
      return `alias "${path}" is the address of the post "${aliasSlug}"`;
    taken.set(path, file);
  }
  return null;
}

/** The post with its local images uploaded (once, by content hash) and referenced by URL. */
async function uploadImages(
  client: FolioClient,
  blogId: string,
  dir: string,
  file: string,
  post: PostFile,
  state: SyncState,
  dryRun: boolean,
  report: PushReport,
): Promise<PostFile> {
  const urls = new Map<string, string>();
  for (const image of localImages(dir, file, post)) {
    const { hash, bytes } = await fileHash(image.path);
    let url = state.media[hash];
    if (!url) {
      if (dryRun) {
        urls.set(image.reference, `(upload of ${image.reference})`);
        continue;
      }
      url = (await client.uploadMedia(bytes, imageType(image.path) ?? 'application/octet-stream', blogId)).url;
      state.media[hash] = url;
      report.uploaded++;
    }
    urls.set(image.reference, url);
  }
  return withMediaUrls(post, urls);
}
