/**
 * Posts as a full render's chunks carry them (renderSiteInChunks.ts): a body is its text, or
 * its stored UTF-8 bytes as stages/fullSite.ts reads them. Bytes cross to a worker thread
 * transferred, not copied, and are decoded only where the post is rendered, so the main thread
 * neither decodes nor clones the HTML and Markdown of every post of a rebuild.
 */
import type { SitePost } from '../../domain/siteTypes.js';

export type ChunkPost = Omit<SitePost, 'contentHtml' | 'contentMd'> & { contentHtml: string | Uint8Array; contentMd: string | Uint8Array };

// ignoreBOM keeps a leading U+FEFF, as reading the column as text does.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const text = (body: string | Uint8Array): string => (typeof body === 'string' ? body : decoder.decode(body));

/** The post with its bodies as text. */
export function decodedPost(post: ChunkPost): SitePost {
  return { ...post, contentHtml: text(post.contentHtml), contentMd: text(post.contentMd) };
}

/**
 * The buffers of the posts' byte bodies that can be handed to a worker: each only once, and only
 * one a body owns whole (a view into a shared buffer is copied instead).
 */
export function bodyTransfers(posts: readonly ChunkPost[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const post of posts) {
    for (const body of [post.contentHtml, post.contentMd]) {
      if (typeof body === 'string' || !(body.buffer instanceof ArrayBuffer)) continue;
      if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength) buffers.add(body.buffer);
    }
  }
  return [...buffers];
}
