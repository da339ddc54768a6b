/**
 * The one Markdown pipeline: markdown-it → server-side highlighting → allowlist sanitiser.
 * Authors' HTML is untrusted: raw HTML is allowed in Markdown only as far as the
 * allowlist below lets it through, so no script, style, iframe, form, event handler or
 * javascript: URL ever reaches a rendered page.
 */
import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';
import { pictureHtml } from '../media/pictureHtml.js';
import { escapeHtml } from '../lib/escapeHtml.js';
import { highlightCode } from './highlighter.js';

/**
 * Larger code blocks are shown unhighlighted: highlight.js takes seconds on a megabyte of code
 * and triples its size in spans, for a listing nobody reads token by token.
 */
export const MAX_HIGHLIGHTED_CODE_CHARS = 32 * 1024;

function highlight(code: string, lang: string): string {
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  // Highlight only languages the author named: auto-detection is slow and often wrong.
  const html = language && code.length <= MAX_HIGHLIGHTED_CODE_CHARS ? highlightCode(code, language) : null;
  if (html !== null) {
    return `<pre class="hljs"><code class="language-${escapeHtml(language)}">${html}</code></pre>`;
  }
  return `<pre class="hljs"><code>${escapeHtml(code)}</code></pre>`;
}

const requireModule = createRequire(import.meta.url);

/**
 * markdown-it and sanitize-html (with htmlparser2 and postcss) are loaded by the first render,
 * not at start-up: a tenth of a second of every process's start that a server only answering
 * reads never needs (main.ts warms them in the background once it listens).
 */
interface Pipeline {
  md: InstanceType<typeof MarkdownIt>;
  sanitize: typeof sanitizeHtml;
  options: sanitizeHtml.IOptions;
}

let pipeline: Pipeline | null = null;

function markdownPipeline(): Pipeline {
  if (pipeline) return pipeline;
  const MarkdownItClass = requireModule('markdown-it') as typeof MarkdownIt;
  const sanitize = requireModule('sanitize-html') as typeof sanitizeHtml;
  const md = new MarkdownItClass({ html: true, linkify: true, typographer: false, highlight });

  // Images uploaded to Folio (src/media) are drawn responsively; any other image as markdown-it does.
  const plainImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const title = token.attrGet('title');
    const alt = self.renderInlineAsText(token.children ?? [], options, env);
    const picture = pictureHtml(String(token.attrGet('src') ?? ''), alt, title === null ? null : String(title));
    return picture ?? plainImage(tokens, idx, options, env, self);
  };
  // Column alignment (`|:-:|`) as a class, not markdown-it's inline style: the sanitiser drops
  // every style attribute, and the site's CSP allows no inline style.
  for (const rule of ['th_open', 'td_open'] as const) {
    md.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
      const token = tokens[idx]!;
      const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
      if (align) {
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
        token.attrJoin('class', `align-${align}`);
      }
      return self.renderToken(tokens, idx, options);
    };
  }
  pipeline = { md, sanitize, options: sanitizeOptions(sanitize) };
  return pipeline;
}

/** Loads the pipeline now (a warm-up after start-up, so the first post does not wait for it). */
export function loadMarkdownPipeline(): void {
  markdownPipeline();
}

const sanitizeOptions = (sanitize: typeof sanitizeHtml): sanitizeHtml.IOptions => ({
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'blockquote',
    'pre',
    'code',
    'span',
    'em',
    'strong',
    'b',
    'i',
    'u',
    's',
    'del',
    'ins',
    'mark',
    'sub',
    'sup',
    'small',
    'kbd',
    'abbr',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'a',
    'img',
    'figure',
    'figcaption',
    'picture',
    'source',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
    'details',
    'summary',
    'div',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'name', 'id', 'rel'],
    img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading', 'decoding'],
    source: ['srcset', 'sizes', 'type', 'media'],
    code: ['class'],
    pre: ['class'],
    span: ['class'],
    th: ['align', 'class', 'colspan', 'rowspan'],
    td: ['align', 'class', 'colspan', 'rowspan'],
    ol: ['start'],
    abbr: ['title'],
    '*': ['id'],
  },
  allowedClasses: {
    code: ['language-*'],
    pre: ['hljs'],
    span: ['hljs-*', 'language-*'],
    th: ['align-left', 'align-center', 'align-right'],
    td: ['align-left', 'align-center', 'align-right'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // The library's list plus `source`, a void element: `</source>` is invalid HTML.
  selfClosing: [...sanitize.defaults.selfClosing, 'source'],
  transformTags: {
    // Author links are untrusted destinations: never pass referrer-carrying openers.
    a: (tagName, attribs) => {
      const href = attribs.href ?? '';
      if (/^https?:\/\//i.test(href)) return { tagName, attribs: { ...attribs, rel: 'noopener nofollow ugc' } };
      return { tagName, attribs };
    },
    img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, loading: 'lazy' } }),
  },
});

/** Markdown source → sanitised HTML, safe to place in a page as is. */
export function renderMarkdown(source: string): string {
  const { md, sanitize, options } = markdownPipeline();
  return sanitize(md.render(source), options);
}

/**
 * The readable text of a post's stored HTML (content_html, our own sanitised output), for the
 * search index and the generated description: code blocks dropped, tags removed (a block ends a
 * word, an inline tag does not), entities decoded, whitespace folded. The result is only
 * tokenised or escaped again, never shown as HTML, so removing tags by pattern is enough; it
 * costs a fraction of rendering the Markdown again, which would dominate a reindex.
 *
 * Every pattern is linear on this input: the sanitiser closes every element it lets through
 * and escapes every `<` and `>` that is not markup, so each lazy scan stops at the nearest
 * closing tag and no scan is ever repeated (test/integration/hostileInputs.test.ts).
 */
export function htmlToPlainText(html: string, options: { headings?: boolean } = {}): string {
  const withoutHeadings = options.headings === false ? html.replace(/<h([1-6])[\s>][\s\S]*?<\/h\1>/gi, ' ') : html;
  const text = withoutHeadings
    .replace(/<pre[\s>][\s\S]*?<\/pre>/gi, ' ')
    .replace(/<(?:\/(?:p|h[1-6]|li|blockquote|tr|td|th|div|ul|ol|table|dt|dd)|br\s*\/?|hr\s*\/?)>/gi, '$& ')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text).replace(/\s+/g, ' ').trim();
}

/** What the search index takes of a post: its prose, and apart from it the text of its code blocks. */
export interface SearchText {
  body: string;
  code: string;
}

/**
 * htmlToPlainText, plus the text of the code blocks it drops: code words are indexed too, in a
 * field of their own that weighs less than prose (src/search/lunrSetup.ts). Linear like it.
 */
export function htmlToSearchText(html: string): SearchText {
  const blocks = html.match(/<pre[\s>][\s\S]*?<\/pre>/gi) ?? [];
  const code = blocks.map((block) => block.replace(/<[^>]*>/g, ' ')).join(' ');
  return { body: htmlToPlainText(html), code: decodeEntities(code).replace(/\s+/g, ' ').trim() };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&', nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/**
 * A generated description is the plain text's first sentences, at most 160
 * characters, cut at a word boundary. Made from the rendered HTML rather than by rendering the
 * Markdown a second time, which doubled the cost of every write.
 */
export function descriptionFromHtml(html: string, max = 160): string {
  // Headings are labels, not sentences: describe the prose, unless there is nothing else.
  const text = htmlToPlainText(html, { headings: false }) || htmlToPlainText(html);
  if (text.length <= max) return text;
  // Only the head can fit: matching sentences over a whole 1 MB post without punctuation is
  // quadratic (test/regressions/coreApi.test.ts).
  // Sentences are taken one after another from the start (sticky): a dot inside a word
  // ("Node.js", "v1.2") ends no sentence, and no words are skipped before the first match.
  const sentences = text.slice(0, max + 1).match(/[\s\S]*?[.!?。？！]+(?:\s+|$)/guy) ?? [];
  let out = '';
  for (const sentence of sentences) {
    if ((out + sentence).trimEnd().length > max) break;
    out += sentence;
  }
  if (out.trim().length > 0) return out.trim();
  const cut = text.slice(0, max - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > 40 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
