/**
 * Everything Folio derives from a post's Markdown when it is written: the sanitised HTML, the
 * description generated from it, and the prose counts that language and reading time come
 * from. Pure and synchronous; the ContentRenderer runs it on a worker thread for anything but
 * small posts, because a megabyte of valid Markdown can take seconds to render.
 */
import { countPostText, type TextCounts } from '../domain/language.js';
import { descriptionFromHtml, renderMarkdown } from './markdown.js';
import { mediaRefsAsPaths } from '../media/mediaRefs.js';

export interface PostContentInput {
  title: string;
  contentMd: string;
}

/**
 * The rendered HTML of a post may be at most 3 MB. The API bounds the Markdown (1 MB), but some
 * Markdown renders to five or six times its size (1 MB of `&` is 5 MB of `&amp;`, a table of
 * one-character cells as much). Every publish reads, encodes, hashes and copies the HTML on the
 * event loop several times over, so the bound keeps each step of the worst post within the
 * 100 ms budget; readers could not use a bigger page anyway. Ordinary posts render to little
 * more than their Markdown and are nowhere near it.
 */
export const MAX_CONTENT_HTML_BYTES = 3 * 1024 * 1024;

export interface PostContent {
  /** Empty when the HTML is over MAX_CONTENT_HTML_BYTES: the post is refused, not stored. */
  contentHtml: string;
  /** UTF-8 size of the rendered HTML. */
  htmlBytes: number;
  /** The description generated when the author gives none. */
  description: string;
  textCounts: TextCounts;
}

export function derivePostContent(input: PostContentInput): PostContent {
  // The blog's own images are drawn root-relative: the HTML then holds on every host of the blog.
  const html = renderMarkdown(mediaRefsAsPaths(input.contentMd));
  const htmlBytes = Buffer.byteLength(html, 'utf8');
  const textCounts = countPostText(input);
  // Refused anyway: do not spend time describing it or copying megabytes back from a worker.
  if (htmlBytes > MAX_CONTENT_HTML_BYTES) return { contentHtml: '', htmlBytes, description: '', textCounts };
  return { contentHtml: html, htmlBytes, description: descriptionFromHtml(html), textCounts };
}
