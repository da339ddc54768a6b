/**
 * `folio pull <dir>`: writes every post of the blog into the folder as `<slug>.md` with front
 * matter (frontMatter.ts), and records the sync state, so that a push right after sends nothing.
 * Files of other names are left alone; a post's file is overwritten with what the blog holds.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FolioClient } from '../client/folioClient.js';
import { formatPostFile } from './frontMatter.js';
import { postHash, readState, writeState } from './localFolder.js';
import { listAllPosts, toPostFile } from './remotePosts.js';

export interface PullReport {
  written: number;
  files: string[];
}

/** A file name for the slug: slugs are letters, digits and hyphens, so the slug itself. */
export const fileNameOf = (slug: string): string => `${slug}.md`;

export async function pull(client: FolioClient, blogId: string, dir: string, onProgress?: (done: number, total: number) => void): Promise<PullReport> {
  await mkdir(dir, { recursive: true });
  const state = await readState(dir, blogId);
  const summaries = await listAllPosts(client, blogId);
  const files: string[] = [];
  for (const [i, summary] of summaries.entries()) {
    onProgress?.(i, summaries.length);
    const post = await client.getPost(summary.slug, blogId);
    const fields = toPostFile(post);
    const file = fileNameOf(post.slug);
    await writeFile(join(dir, file), formatPostFile(fields));
    state.posts[post.slug] = { hash: postHash(fields), updatedAt: post.updated_at };
    files.push(file);
  }
  onProgress?.(summaries.length, summaries.length);
  await writeState(dir, state);
  return { written: files.length, files };
}
