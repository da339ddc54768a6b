/**
 * Derives post content (postContent.ts) without blocking the event loop: a megabyte of valid
 * Markdown (a wide table, many emphasis markers, long runs of `![`) takes markdown-it and the
 * sanitiser seconds, and every other request of every account would wait that long. Small posts
 * — nearly all of them — are derived in place, where the worst input of that size stays far
 * below the event loop's 100 ms budget; larger ones go to the shared worker pool.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { TaskRunner } from '../workers/taskRunner.js';
import { htmlToSearchText, type SearchText } from './markdown.js';
import { derivePostContent, type PostContent, type PostContentInput } from './postContent.js';

/** The kinds of work this renderer hands to the shared worker pool (src/heavyWork/heavyTasks.ts runs them). */
export interface ContentTasks {
  /** Markdown → sanitised HTML, description and prose counts. */
  postContent: { request: PostContentInput; result: PostContent };
  /** Stored HTML → the prose and code text the search index takes. */
  searchText: { request: string; result: SearchText };
}

/** `tenant` is the account the work is done for; it decides the fair share of the workers. */
export interface ContentRenderer {
  derive(tenant: string, input: PostContentInput): Promise<PostContent>;
  /** htmlToSearchText of stored HTML: prose and code text for the search index. */
  searchText(tenant: string, html: string): Promise<SearchText>;
}

/**
 * Below this size even the slowest Markdown (a very wide table) renders and sanitises in place
 * well within the event loop's 100 ms budget; prose is much faster still.
 */
export const INLINE_MAX_CHARS = 8 * 1024;

/**
 * htmlToSearchText is linear but slow on entity-dense HTML (what a megabyte of `&` renders to);
 * below this size even the worst kind stays well within the event loop's 100 ms budget.
 */
export const INLINE_MAX_HTML_CHARS = 64 * 1024;

export class PooledContentRenderer implements ContentRenderer {
  constructor(
    private readonly heavy: TaskRunner<ContentTasks>,
    private readonly inlineMaxChars = INLINE_MAX_CHARS,
    private readonly inlineMaxHtmlChars = INLINE_MAX_HTML_CHARS,
  ) {}

  async searchText(tenant: string, html: string): Promise<SearchText> {
    if (!this.heavy.available || html.length <= this.inlineMaxHtmlChars) return htmlToSearchText(html);
    const text = await this.heavy.run(tenant, 'searchText', html);
    await yieldToLoop();
    return text;
  }

  async derive(tenant: string, input: PostContentInput): Promise<PostContent> {
    if (!this.heavy.available || input.contentMd.length + input.title.length <= this.inlineMaxChars) return derivePostContent(input);
    const content = await this.heavy.run(tenant, 'postContent', input);
    // Receiving megabytes of HTML from the worker already took this turn of the event loop;
    // the caller's write transaction gets a turn of its own.
    await yieldToLoop();
    return content;
  }
}
