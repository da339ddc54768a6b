/**
 * Plain data the renderer works on. Loaded from the database by the publisher, never by the
 * renderer itself, so rendering stays a pure function of these values.
 */
import type { TextCounts } from './language.js';

export interface ThemeConfig {
  customCss?: string;
  adCode?: string;
  cssUrl?: string;
  headerHtml?: string;
  footerHtml?: string;
}

export interface SiteBlog {
  id: string;
  slug: string;
  name: string;
  description: string;
  /** Origin every canonical URL starts with, no trailing slash: `https://blog.example.com`. */
  baseUrl: string;
  themeConfig: ThemeConfig;
  updatedAt: string;
  /** false: the operator turned social cards off (FOLIO_SOCIAL_CARDS), so pages name none. */
  cards?: false;
}

export interface SitePost {
  id: string;
  slug: string;
  title: string;
  /** Sanitised HTML (content_html). */
  contentHtml: string;
  /** Markdown source: the twin's body, and reading time and language when `textCounts` is absent (empty in reads for a neighbour's page or the search index). */
  contentMd: string;
  metaDescription: string;
  ogImageUrl: string | null;
  tags: string[];
  /** ISO 8601 UTC with milliseconds. */
  publishedAt: string;
  createdAt: string;
  updatedAt: string;
  /** countPostText of this post when the database holds it; computed when absent. */
  textCounts?: TextCounts | null;
}

/**
 * A post as listed on index, archive and tag pages and in the sitemap: no body. The database's
 * summaries carry the reading time; a full render derives it from the post (readingMinutesOf).
 */
export type SitePostSummary = Omit<SitePost, 'contentHtml' | 'contentMd' | 'textCounts'> & { readingMinutes?: number };
