/**
 * What every page of one blog shares, computed once per blog and passed to each render
 * function, so that re-rendering a single page costs only that page.
 */
import { countText, emptyCounts, languageOf, type Language, type TextCounts } from '../../domain/language.js';
import { assetPath, safeHttpUrl } from './renderPaths.js';
import type { Theme } from './renderTheme.js';
import { cachePolicy, type CachePolicy } from '../../domain/cacheHeaders.js';
import type { SiteBlog } from '../../domain/siteTypes.js';

export interface RenderContext {
  readonly theme: Theme;
  readonly blog: SiteBlog;
  /** `blog.baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  /** Language of the blog-wide pages (home, archive, tags, 404, feeds). */
  readonly lang: Language;
  /** Stylesheet hrefs in order: the theme's hashed stylesheet, then the owner's `cssUrl`. */
  readonly stylesheets: readonly string[];
  /** The owner's `customCss`, made safe to sit inside a `<style>` element; null when empty. */
  readonly customCss: string | null;
  /** The owner's own HTML, printed raw (plan-gated theme fields the owner sets on the blog). */
  readonly headerHtml: string;
  readonly footerHtml: string;
  readonly adCode: string;
  /** Cache-Control of the pages (long at the edge when a CDN purger is configured). */
  readonly cache: CachePolicy;
}

export interface RenderContextInput {
  theme: Theme;
  blog: SiteBlog;
  /** Default: the policy without a CDN purger. */
  cache?: CachePolicy;
  /**
   * The blog's published posts (titles are enough). They decide the language of blog-wide
   * pages together with the blog's name and description; pass the same list for a full
   * rebuild and for a partial one so both agree.
   */
  posts?: readonly { title: string }[];
  /** The word counts of those titles taken together, when the caller keeps them (ListingCache). */
  titleCounts?: TextCounts;
}

/** Language of the blog-wide pages: the blog's name, description and post titles together. */
export function blogLanguage(blog: Pick<SiteBlog, 'name' | 'description'>, titleCounts: TextCounts): Language {
  const counts = { ...titleCounts };
  countText(blog.name, counts);
  countText(blog.description, counts);
  return languageOf(counts);
}

export function titleCountsOf(posts: readonly { title: string }[]): TextCounts {
  const counts = emptyCounts();
  for (const post of posts) countText(post.title, counts);
  return counts;
}

/**
 * A `</style` inside the CSS would end the element and let the rest be parsed as HTML. Every
 * `<` becomes the CSS escape `\3c ` instead: the same character inside CSS strings, comments
 * and `content:` values (the only places valid CSS has one), and nothing the HTML parser sees.
 */
export function neutraliseStyleText(css: string): string {
  return css.replace(/</g, '\\3c ');
}

export function createRenderContext(input: RenderContextInput): RenderContext {
  const { theme, blog } = input;
  const config = blog.themeConfig;
  const cssUrl = safeHttpUrl(config.cssUrl);
  const customCss = config.customCss?.trim() ? neutraliseStyleText(config.customCss) : null;
  return {
    theme,
    blog,
    baseUrl: blog.baseUrl.replace(/\/+$/, ''),
    lang: blogLanguage(blog, input.titleCounts ?? titleCountsOf(input.posts ?? [])),
    stylesheets: [assetPath(theme.stylesheet), ...(cssUrl ? [cssUrl] : [])],
    customCss,
    headerHtml: config.headerHtml ?? '',
    footerHtml: config.footerHtml ?? '',
    adCode: config.adCode ?? '',
    cache: input.cache ?? cachePolicy(false),
  };
}
