/**
 * The editor's live preview (POST /v1/preview): Markdown → exactly the HTML the published post
 * page's content region will hold. It is the publishing path itself, in the same order: media
 * URLs of the blog stored as references (as the posts routes store them), the same derivation
 * and refusals (postDerive.ts, large Markdown on the worker pool), then the reader affordances
 * the post page adds when it renders (headings' ids, keyboard-scrollable code blocks).
 */
import type { ContentRenderer } from '../content/contentRenderer.js';
import type { BlogWithDomain } from '../domain/blog.js';
import type { SiteUrls } from '../domain/siteUrls.js';
import { toMediaRefs } from '../media/mediaRefs.js';
import { enhancePostHtml } from '../publish/render/postHtml.js';
import { derivePostOrRefuse } from './postDerive.js';

export class LivePreview {
  constructor(private readonly deps: { content: ContentRenderer; urls: SiteUrls }) {}

  async html(blog: BlogWithDomain, contentMd: string): Promise<string> {
    const stored = toMediaRefs(contentMd, this.deps.urls.origins(blog));
    const { contentHtml } = await derivePostOrRefuse(this.deps.content, blog.accountId, '', stored, 'content_md');
    // renderPostPage.ts does the same to the stored HTML (measured: ≤ 20 ms for the worst 3 MB).
    return enhancePostHtml(contentHtml.trim()).html;
  }
}
