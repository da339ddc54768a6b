/**
 * A post's Markdown rendered for storing or previewing, with the same refusals either way: the
 * worker pool timing out is a 503 to retry, and HTML over the stored bound is a 400, so a
 * preview never shows content that saving would refuse.
 */
import type { ContentRenderer } from '../content/contentRenderer.js';
import { MAX_CONTENT_HTML_BYTES, type PostContent } from '../content/postContent.js';
import { BadRequestError, ServiceUnavailableError } from '../domain/errors.js';
import { countText, emptyCounts, type TextCounts } from '../domain/language.js';
import type { Post } from '../domain/post.js';
import { TaskTimeoutError } from '../workers/fairWorkerPool.js';

/** `tenant`: the account the work is done for; `field`: the request field the Markdown came in. */
export async function derivePostOrRefuse(content: ContentRenderer, tenant: string, title: string, contentMd: string, field = 'content'): Promise<PostContent> {
  let derived: PostContent;
  try {
    derived = await content.derive(tenant, { title, contentMd });
  } catch (err) {
    if (err instanceof TaskTimeoutError) {
      throw new ServiceUnavailableError('rendering this post took too long; the server is busy, try again shortly', { retryAfter: 30, cause: err });
    }
    throw err;
  }
  if (derived.htmlBytes > MAX_CONTENT_HTML_BYTES) {
    const mb = (derived.htmlBytes / (1024 * 1024)).toFixed(1);
    throw new BadRequestError(
      `content renders to ${mb} MB of HTML; the limit is 3 MB (long runs of characters HTML must escape, such as & or <, or very wide tables, grow the most)`,
      {
        details: [{ field, message: 'must render to at most 3 MB (3,145,728 bytes) of HTML' }],
      },
    );
  }
  return derived;
}

/**
 * A new title over the stored text, without rendering the Markdown again: the HTML and the
 * description do not depend on the title, and a post's counts are its title's plus its text's
 * (countPostText counts them apart), so only the two titles are counted. Null for a row stored
 * before counts were (its text must be counted once).
 */
export function retitledContent(base: Post, title: string): PostContent | null {
  if (!base.textCounts) return null;
  const before = countText(base.title, emptyCounts());
  const after = countText(title, emptyCounts());
  const textCounts = { ...base.textCounts };
  for (const key of Object.keys(textCounts) as (keyof TextCounts)[]) textCounts[key] += after[key] - before[key];
  return { contentHtml: base.contentHtml, htmlBytes: Buffer.byteLength(base.contentHtml, 'utf8'), description: base.metaDescription, textCounts };
}
