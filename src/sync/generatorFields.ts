/**
 * What a folder moved over from Hugo or Jekyll means (docs/cli.md): front-matter dates become
 * `published_at`, old addresses (`aliases`, `permalink`, `redirect_from`) become the post's
 * aliases, and the folder conventions (page bundles, `_posts/`, `_drafts/`) give slugs and
 * drafts. Shortcodes and Liquid tags Folio cannot render are found here, to be reported.
 */
import { createRequire } from 'node:module';
import { basename, dirname, extname, posix, sep } from 'node:path';
import type MarkdownIt from 'markdown-it';
type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

/** `2019-05-01`, `2019-05-01T10:00`, `2019-05-01 10:00:00 +0900`, `…+09:00`, `…Z`: a time, or null. */
const GENERATOR_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A front-matter date as ISO 8601 UTC, or null when it is not one. A time without a zone (and a
 * date without a time, midnight) is taken as UTC, which is what Hugo does with no timeZone set.
 */
export function generatorDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== 'string') return null;
  const match = GENERATOR_DATE.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offset}`);
  if (Number.isNaN(date.getTime())) return null;
  // Date rolls 2019-02-30 over to March; that is no real day.
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (probe.getUTCDate() !== Number(d) || probe.getUTCMonth() !== Number(mo) - 1) return null;
  return date.toISOString();
}

/** A Jekyll post's file name: `2019-05-01-old-post.md`. */
const DATED_NAME = /^(\d{4}-\d{2}-\d{2})-(.+)$/;

export interface PathMeaning {
  /** The name the slug is made from: a bundle's folder, a Jekyll post's name without its date. */
  name: string;
  /** The date in a Jekyll post's file name. */
  date?: string;
  /** Under a `_drafts` folder: never published. */
  draft: boolean;
  /** A Hugo section page (`_index.md`): not a post. */
  section: boolean;
}

export function pathMeaning(file: string): PathMeaning {
  const parts = file.split(sep).flatMap((part) => part.split('/'));
  const name = basename(file, extname(file));
  const draft = parts.slice(0, -1).includes('_drafts');
  if (name === '_index') return { name, draft, section: true };
  // A Hugo page bundle: the folder is the page.
  if (name === 'index' && parts.length > 1) return { name: basename(dirname(file)), draft, section: false };
  const dated = parts.slice(0, -1).includes('_posts') ? DATED_NAME.exec(name) : null;
  if (dated) {
    const date = generatorDate(dated[1]);
    return { name: dated[2]!, ...(date ? { date } : {}), draft, section: false };
  }
  return { name, draft, section: false };
}

/**
 * Where Hugo resolves a page-relative alias (one without a leading `/`): beside the page, in the
 * folder of its address (gohugo.io, URL management: `old-name` in content/examples/page.md is
 * /examples/old-name/, `../old/path` is /old/path/). A page bundle's address is its folder, so
 * its aliases sit beside that folder. `content/` is Hugo's content folder, whether the folder
 * pushed is the site or its content.
 */
export function hugoAliasBase(file: string): string {
  const parts = file.split(sep).flatMap((part) => part.split('/'));
  const name = basename(file, extname(file));
  const dirs = parts.slice(0, name === 'index' && parts.length > 1 ? -2 : -1);
  if (dirs[0] === 'content') dirs.shift();
  return `/${dirs.map((dir) => `${dir}/`).join('')}`;
}

/** A Hugo alias as a path from the blog's root: a page-relative one resolved against `base`. */
export function hugoAliasPath(alias: string, base: string): string {
  // A full URL is no path (the API refuses it, naming it as written).
  if (alias.startsWith('/') || /^[a-z][a-z\d+.-]*:/i.test(alias)) return alias;
  const resolved = posix.join(base, alias);
  return alias.endsWith('/') && !resolved.endsWith('/') ? `${resolved}/` : resolved;
}

/**
 * `{{< name …>}}`, `{{% name …%}}` (Hugo), `{% name … %}` (a Liquid tag) and `{{ name … }}` (a
 * Liquid output such as `{{ site.url }}`, named by its variable), closing forms left out.
 */
const SHORTCODE = /\{\{[<%]-?\s*([\w./-]+)|\{%-?\s*(\w+)|\{\{-?\s*([A-Za-z_][\w.-]*)/g;

/** The names of the shortcodes and Liquid tags the Markdown uses outside code, each once. */
export function unrenderedTags(markdown: string): string[] {
  // Generators read shortcodes in the source: without `{{` or `{%` there is none, and parsing
  // the post (a quarter of a push's CPU in the command) would find nothing.
  if (!/\{[{%]/.test(markdown)) return [];
  const names = new Set<string>();
  for (const match of textOutsideCode(markdown).matchAll(SHORTCODE)) {
    const name = match[1] ?? match[2] ?? match[3]!;
    if (name.startsWith('/') || /^end/.test(name)) continue;
    names.add(name);
  }
  return [...names];
}

const requireModule = createRequire(import.meta.url);
let parser: InstanceType<typeof MarkdownIt> | null = null;

/**
 * The Markdown's text as markdown-it reads it, without fenced, indented and inline code: a
 * shortcode shown as code is meant as text. The same parser settings as the renderer
 * (src/content/markdown.ts), loaded on first use so other commands do not pay for it.
 */
function textOutsideCode(markdown: string): string {
  parser ??= new (requireModule('markdown-it') as typeof MarkdownIt)({ html: true, linkify: true });
  const parts: string[] = [];
  const inline = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'code_inline') parts.push(' ');
      else if (token.type === 'softbreak' || token.type === 'hardbreak') parts.push('\n');
      else if (token.type === 'text' || token.type === 'html_inline') parts.push(token.content);
      else if (token.type === 'link_open' || token.type === 'image') {
        // `[a]({{< ref "b" >}})`: an address is written in the Markdown too (percent-encoded by the parser).
        parts.push(' ', safeDecode(String(token.attrGet('href') ?? token.attrGet('src') ?? '')), ' ');
      }
      if (token.children) inline(token.children);
    }
  };
  for (const token of parser.parse(markdown, {})) {
    if (token.type === 'inline') inline(token.children ?? []);
    else if (token.type === 'html_block') parts.push(token.content);
    parts.push('\n');
  }
  return parts.join('');
}

function safeDecode(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}
