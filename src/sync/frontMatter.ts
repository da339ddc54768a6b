/**
 * A post as a Markdown file with YAML front matter (`folio push` / `folio pull`, docs/cli.md):
 *
 * ```
 * ---
 * title: Sharpening a chisel
 * slug: sharpening-a-chisel
 * tags: [tools, how-to]
 * description: Three stones and ten minutes
 * og_image: https://example.com/chisel.jpg
 * status: published            # draft (or `draft: true`), published, scheduled
 * scheduled_at: 2027-01-01T09:00:00.000Z   # with status scheduled
 * date: 2019-05-01T09:00:00+09:00           # a published post's publication time (Hugo, Jekyll)
 * aliases: [/2019/05/old-post/]             # old addresses (also Jekyll permalink, redirect_from)
 * ---
 * The Markdown.
 * ```
 *
 * YAML is parsed by the `yaml` library; every mistake is reported with the file and the line
 * it is on (FrontMatterError).
 */
import { isMap, LineCounter, parseDocument, stringify } from 'yaml';
import { generatorDate, hugoAliasBase, hugoAliasPath } from './generatorFields.js';

export type SyncStatus = 'draft' | 'published' | 'scheduled';

export interface PostFile {
  title: string;
  /** From the front matter, else from the file name. */
  slug: string | undefined;
  tags: string[];
  /** undefined: not given (the API's generated one is kept). */
  description: string | undefined;
  ogImage: string | undefined;
  status: SyncStatus;
  scheduledAt: string | undefined;
  /** `date`: when a published post was first published (ISO 8601 UTC). */
  publishedAt?: string | undefined;
  /** Old addresses, as written (`aliases`, `permalink`, `redirect_from`); undefined: none given, the post's stay. */
  aliases?: string[] | undefined;
  content: string;
}

/** A parsed file, with what it had that was ignored (one line each). */
export type ParsedPostFile = PostFile & { warnings: string[] };

export class FrontMatterError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'FrontMatterError';
  }
}

const KNOWN = new Set([
  'title',
  'slug',
  'tags',
  'description',
  'og_image',
  'status',
  'draft',
  'scheduled_at',
  'date',
  'published',
  'aliases',
  'permalink',
  'redirect_from',
  'layout',
]);

/**
 * Fields that Hugo, Jekyll and other generators write, with what to do instead: a folder moved
 * over from one of them fails file by file, and each message should say how to fix it. They stay
 * errors: ignoring them would also ignore Jekyll's `published: false` and publish a draft.
 */
const HINTS: Record<string, string> = {
  publishDate: 'Folio dates a post when it is published; remove it, or use status: scheduled with scheduled_at',
  lastmod: 'Folio records when a post changes; remove it',
  lang: "Folio tells a post's language from its text; remove it",
  language: "Folio tells a post's language from its text; remove it",
  categories: 'use tags',
  keywords: 'use tags',
  summary: 'use description',
  excerpt: 'use description',
  image: 'use og_image',
  cover: 'use og_image',
};
const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

export function parsePostFile(file: string, text: string): ParsedPostFile {
  const source = text.replace(/^\uFEFF/, '');
  if (!OPENING.test(source))
    throw new FrontMatterError(file, 1, 'the file must start with front matter: a line "---", YAML fields (title at least), and "---"');
  const afterOpening = source.replace(OPENING, '');
  const closing = CLOSING.exec(afterOpening);
  if (!closing) throw new FrontMatterError(file, 1, 'the front matter is not closed by a line "---"');
  const yamlText = afterOpening.slice(0, closing.index);
  const content = afterOpening.slice(closing.index + closing[0].length).replace(/^\r?\n/, '');

  // Lines of the file: the YAML starts on line 2.
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  // A mistake found at the end of the YAML (an unclosed list) is reported on its last line, not on the closing "---".
  const lastLine = 1 + Math.max(1, yamlText.replace(/\r?\n$/, '').split('\n').length);
  const lineOf = (offset: number | undefined): number => (offset === undefined ? 1 : Math.min(lastLine, lines.linePos(offset).line + 1));
  const first = doc.errors[0];
  if (first) throw new FrontMatterError(file, lineOf(first.pos[0]), first.message.split('\n')[0] ?? first.message);
  if (!isMap(doc.contents)) throw new FrontMatterError(file, 2, 'the front matter must be YAML fields (name: value)');

  const lineOfKey = (key: string): number => {
    const pair = doc.contents && isMap(doc.contents) ? doc.contents.items.find((item) => (item.key as { value?: unknown } | null)?.value === key) : undefined;
    const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
    return lineOf(range?.[0]);
  };
  const fields = doc.toJS() as Record<string, unknown>;
  const fail = (key: string, problem: string): never => {
    throw new FrontMatterError(file, lineOfKey(key), problem);
  };
  // All of them at once, at the line of the first: a file from another generator has several.
  const unknown = Object.keys(fields).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) {
    const problems = unknown.map((key) => `unknown field "${key}"${Object.hasOwn(HINTS, key) ? `: ${HINTS[key]}` : ''}`);
    fail(unknown[0]!, `${problems.join('; ')} (known: ${[...KNOWN].join(', ')})`);
  }

  const text_ = (key: string): string | undefined => {
    const value = fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') return fail(key, `${key} must be text`);
    return String(value);
  };
  const title = text_('title');
  if (title === undefined || title.trim() === '') throw new FrontMatterError(file, 2, 'title is required');
  const tagsValue = fields.tags ?? [];
  if (!Array.isArray(tagsValue) || !tagsValue.every((t) => typeof t === 'string' || typeof t === 'number'))
    fail('tags', 'tags must be a list of words, e.g. [tools, how-to]');
  const tags = (tagsValue as (string | number)[]).map(String);

  let status: SyncStatus = 'published';
  const statusValue = text_('status');
  if (statusValue !== undefined) {
    if (statusValue !== 'draft' && statusValue !== 'published' && statusValue !== 'scheduled')
      fail('status', `status must be draft, published or scheduled, not "${statusValue}"`);
    status = statusValue as SyncStatus;
  }
  if (fields.draft !== undefined) {
    if (typeof fields.draft !== 'boolean') fail('draft', 'draft must be true or false');
    if (fields.draft === true) {
      if (statusValue !== undefined && statusValue !== 'draft') fail('draft', `draft: true contradicts status: ${statusValue}`);
      status = 'draft';
    }
  }
  // Jekyll's `published: false` is a draft.
  if (fields.published !== undefined) {
    if (typeof fields.published !== 'boolean') fail('published', 'published must be true or false');
    if (fields.published === false) {
      if (statusValue !== undefined && statusValue !== 'draft') fail('published', `published: false contradicts status: ${statusValue}`);
      status = 'draft';
    }
  }
  const warnings: string[] = [];
  if (fields.layout !== undefined) warnings.push(`layout "${String(fields.layout)}" ignored: the blog's theme lays out every post`);
  let publishedAt: string | undefined;
  if (fields.date !== undefined && fields.date !== null) {
    const date = generatorDate(fields.date);
    if (date === null) fail('date', `date is not a date: "${String(fields.date)}" (use 2019-05-01, 2019-05-01T09:00:00+09:00 or 2019-05-01 09:00:00 +0900)`);
    // A draft or a scheduled post gets its date when it goes live.
    if (status === 'published') publishedAt = date!;
  }
  const aliases = addressesOf(fields, fail, hugoAliasBase(file));
  const scheduled = fields.scheduled_at instanceof Date ? fields.scheduled_at.toISOString() : text_('scheduled_at');
  if (status === 'scheduled' && scheduled === undefined) fail('status', 'status scheduled needs scheduled_at (an ISO 8601 time with a time zone)');
  if (scheduled !== undefined && status !== 'scheduled') fail('scheduled_at', 'scheduled_at needs status: scheduled');
  if (scheduled !== undefined && Number.isNaN(Date.parse(scheduled))) fail('scheduled_at', `scheduled_at is not a time: "${scheduled}"`);

  return {
    title,
    slug: text_('slug'),
    tags,
    description: text_('description'),
    ogImage: text_('og_image'),
    status,
    scheduledAt: scheduled === undefined ? undefined : new Date(scheduled).toISOString(),
    ...(publishedAt !== undefined ? { publishedAt } : {}),
    ...(aliases !== undefined ? { aliases } : {}),
    content,
    warnings,
  };
}

/**
 * The post's old addresses: Hugo's `aliases` (a relative one resolved beside the page, as Hugo
 * does: hugoAliasBase), Jekyll's `permalink` and jekyll-redirect-from's `redirect_from` (from the
 * site's root), in that order; undefined when the file names none. A permalink with placeholders
 * (`/:year/:title/`) names no one address.
 */
function addressesOf(fields: Record<string, unknown>, fail: (key: string, problem: string) => never, aliasBase: string): string[] | undefined {
  let found: string[] | undefined;
  for (const key of ['aliases', 'permalink', 'redirect_from']) {
    const value = fields[key];
    if (value === undefined || value === null) continue;
    const list = Array.isArray(value) ? value : [value];
    if (!list.every((entry) => typeof entry === 'string' && entry.trim() !== ''))
      fail(key, `${key} must be a path or a list of paths, e.g. [/2019/05/old-post/]`);
    for (const entry of list as string[]) {
      if (key === 'permalink' && /(^|\/):[a-z_]+/.test(entry))
        fail(key, `permalink "${entry}" has placeholders; write the post's own old address, e.g. /2019/05/01/old-post.html`);
      const trimmed = entry.trim();
      const path = key === 'aliases' ? hugoAliasPath(trimmed, aliasBase) : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
      found ??= [];
      if (!found.includes(path)) found.push(path);
    }
  }
  return found;
}

/** The file `folio pull` writes for a post; parsePostFile reads it back to the same fields. */
export function formatPostFile(post: Omit<PostFile, 'slug'> & { slug: string }): string {
  const fields: Record<string, unknown> = { title: post.title, slug: post.slug, tags: post.tags };
  if (post.description !== undefined) fields.description = post.description;
  if (post.ogImage !== undefined) fields.og_image = post.ogImage;
  fields.status = post.status;
  if (post.scheduledAt !== undefined) fields.scheduled_at = post.scheduledAt;
  if (post.publishedAt !== undefined) fields.date = post.publishedAt;
  if (post.aliases !== undefined && post.aliases.length > 0) fields.aliases = post.aliases;
  return `---\n${stringify(fields, { lineWidth: 0 })}---\n${post.content}`;
}
