/**
 * The folder side of `folio push` / `folio pull`: the `*.md` files (any depth, dot folders
 * skipped), the images they reference, and the sync state file.
 *
 * The state file (`.folio-sync.json` in the folder) records, per post, the hash of what the
 * folder last said and the post's `updated_at` after it was synced, and per image file hash the
 * media URL it was uploaded as. A push finds a post unchanged from these alone (no read of the
 * post, no write); when either differs it reads the post and compares fields, so a folder
 * without the state file (a fresh clone) still sends only real changes.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import type { PostFile } from './frontMatter.js';

export const STATE_FILE = '.folio-sync.json';

export interface SyncState {
  /** The blog the folder was last synced with: another blog starts afresh. */
  blogId: string;
  posts: Record<string, { hash: string; updatedAt: string }>;
  /** sha256 of an image file → its media URL. */
  media: Record<string, string>;
}

export async function readState(dir: string, blogId: string): Promise<SyncState> {
  const empty: SyncState = { blogId, posts: {}, media: {} };
  try {
    const state = JSON.parse(await readFile(join(dir, STATE_FILE), 'utf8')) as Partial<SyncState>;
    if (state.blogId !== blogId || typeof state.posts !== 'object' || typeof state.media !== 'object') return empty;
    return { blogId, posts: state.posts ?? {}, media: state.media ?? {} };
  } catch {
    return empty;
  }
}

export async function writeState(dir: string, state: SyncState): Promise<void> {
  // Written whole and renamed into place: an interrupted push leaves the old state, never half.
  const path = join(dir, STATE_FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 1)}\n`);
  await rename(`${path}.tmp`, path);
}

/** The `.md` files under `dir`, as paths relative to it, sorted. */
export async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter(
      (e) =>
        e.isFile() &&
        e.name.endsWith('.md') &&
        !relative(dir, join(e.parentPath, e.name))
          .split(sep)
          .some((part) => part.startsWith('.')),
    )
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** What a post's fields hash to: equal hashes, nothing to send. */
export function postHash(post: PostFile & { slug: string }): string {
  const { title, slug, tags, description, ogImage, status, scheduledAt, publishedAt, aliases, content } = post;
  return createHash('sha256')
    .update(
      JSON.stringify([title, slug, tags, description ?? null, ogImage ?? null, status, scheduledAt ?? null, content, publishedAt ?? null, aliases ?? null]),
    )
    .digest('base64url');
}

/** A slug from a file name (`Sharpening a Chisel.md` → `sharpening-a-chisel`), as the API would accept it. */
export function slugFromFileName(file: string): string {
  return basename(file, extname(file))
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{Ll}\p{Lo}\p{Nd}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** An image the post references by a path inside the folder. */
export interface LocalImage {
  /** As written in the post (`images/a.png`). */
  reference: string;
  path: string;
}

const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.avif': 'image/avif',
};

export function imageType(path: string): string | undefined {
  return IMAGE_TYPES[extname(path).toLowerCase()];
}

/** `![alt](path)`, `![alt](<path>)`, `![alt](path "title")`: group 1 is the path. */
const IMAGE = /!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** Local images referenced by `![alt](path)` in the content, or as og_image; outside the folder never. */
export function localImages(dir: string, file: string, post: PostFile): LocalImage[] {
  const root = resolve(dir);
  const references = [...post.content.matchAll(IMAGE)].map((m) => m[1]!);
  if (post.ogImage) references.push(post.ogImage);
  const found = new Map<string, LocalImage>();
  for (const reference of references) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('/') || reference.startsWith('#')) continue;
    const path = resolve(root, dirname(file), decodeURI(reference));
    if (!path.startsWith(root + sep) || !imageType(path) || !existsSync(path)) continue;
    found.set(reference, { reference, path });
  }
  return [...found.values()];
}

export async function fileHash(path: string): Promise<{ hash: string; bytes: Buffer }> {
  const bytes = await readFile(path);
  return { hash: createHash('sha256').update(bytes).digest('base64url'), bytes };
}

/** The post with its local image references replaced by their media URLs. */
export function withMediaUrls(post: PostFile, urls: ReadonlyMap<string, string>): PostFile {
  const content = post.content.replace(IMAGE, (whole, reference: string) => {
    const url = urls.get(reference);
    return url === undefined ? whole : whole.replace(reference, url);
  });
  const ogImage = post.ogImage !== undefined ? (urls.get(post.ogImage) ?? post.ogImage) : undefined;
  return { ...post, content, ogImage };
}
