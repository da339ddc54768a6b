/**
 * What a social card shows (pages/cards.ts draws one per post without an og_image, and one for
 * the blog's home page): plain data, hashed into the card's store key, so anything drawn that
 * changes gives a new URL and no cache ever serves the old picture under it.
 */
import { createHash } from 'node:crypto';
import { countText, emptyCounts, languageOf, type Language } from '../../domain/language.js';
import type { SiteBlog, SitePostSummary } from '../../domain/siteTypes.js';
import { labelsFor } from '../render/renderLabels.js';
import { absoluteUrl, encodeSegment, fileKey, postImageUrl } from '../render/renderPaths.js';

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;
/** A post card shows this many of its tags at most. */
export const CARD_TAGS = 3;
/**
 * Part of every card's hash: raise it when the drawing (cardTree.ts) changes, so every card is
 * drawn again under a new URL by the re-render that follows an upgrade.
 */
export const CARD_DESIGN = 1;

export interface CardColours {
  bg: string;
  fg: string;
  muted: string;
  accent: string;
  surface: string;
}

/** The theme's own colours (templates/assets/site.css, light scheme). */
export const THEME_COLOURS: CardColours = { bg: '#fdfcfa', fg: '#1d2127', muted: '#5a6370', accent: '#0a58a6', surface: '#f3f1ed' };

export interface CardSpec {
  /** The small line above the title: the blog's name on a post card, empty on the blog's. */
  kicker: string;
  /** The large, wrapped text: the post's title, or the blog's name. */
  title: string;
  /** The blog's description on its card; empty on a post card. */
  subtitle: string;
  tags: string[];
  /** The post's date as its readers read it; empty on the blog's card. */
  date: string;
  lang: Language;
  colours: CardColours;
}

/** A card the publisher draws: where it goes, and what it shows. */
export interface CardDrawing {
  key: string;
  spec: CardSpec;
}

const CUSTOM_PROPERTY = /--(bg|fg|muted|accent|surface)\s*:\s*(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})\s*[;}]/g;
const coloursCache = new WeakMap<SiteBlog, CardColours>();

/**
 * The card's colours: the theme's, each replaced where the owner's customCss sets the same
 * custom property (`--accent: #c0392b;`, the first such declaration) to a hex colour. Other
 * colour syntaxes are ignored rather than guessed at.
 */
export function cardColours(blog: SiteBlog): CardColours {
  let colours = coloursCache.get(blog);
  if (colours) return colours;
  colours = { ...THEME_COLOURS };
  const seen = new Set<string>();
  for (const [, name, value] of (blog.themeConfig.customCss ?? '').matchAll(CUSTOM_PROPERTY)) {
    const key = name as keyof CardColours;
    if (seen.has(key)) continue;
    seen.add(key);
    colours[key] = value!.toLowerCase();
  }
  coloursCache.set(blog, colours);
  return colours;
}

function languageOfText(text: string): Language {
  const counts = emptyCounts();
  countText(text, counts);
  return languageOf(counts);
}

/** Twelve hex digits of sha256 over the design version and every drawn field. */
export function cardHash(spec: CardSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([CARD_DESIGN, spec.kicker, spec.title, spec.subtitle, spec.tags, spec.date, spec.lang, spec.colours]))
    .digest('hex')
    .slice(0, 12);
}

const cardName = (spec: CardSpec) => `card-${cardHash(spec)}.png`;

/**
 * The post's card, or null when its og_image gives it a picture already (a given og_image always
 * wins; one that is no http(s) URL gives none, and then the card stands in).
 */
export function postCard(blog: SiteBlog, post: SitePostSummary): CardDrawing | null {
  if (blog.cards === false || postImageUrl(blog.baseUrl, post.ogImageUrl)) return null;
  const lang = languageOfText(post.title);
  const spec: CardSpec = {
    kicker: blog.name,
    title: post.title,
    subtitle: '',
    tags: post.tags.slice(0, CARD_TAGS),
    date: labelsFor(lang).formatDate(post.publishedAt),
    lang,
    colours: cardColours(blog),
  };
  return { key: fileKey(blog.slug, `${post.slug}/${cardName(spec)}`), spec };
}

/** The absolute URL of the post's card (null as postCard), on the blog's current origin. */
export function postCardUrl(blog: SiteBlog, baseUrl: string, post: SitePostSummary): string | null {
  const card = postCard(blog, post);
  return card ? absoluteUrl(baseUrl, `/${encodeSegment(post.slug)}/${card.key.slice(card.key.lastIndexOf('/') + 1)}`) : null;
}

/** The blog's card, for its home page: its name and description (null when cards are off). */
export function blogCard(blog: SiteBlog): CardDrawing | null {
  if (blog.cards === false) return null;
  const spec: CardSpec = {
    kicker: '',
    title: blog.name,
    subtitle: blog.description,
    tags: [],
    date: '',
    lang: languageOfText(`${blog.name} ${blog.description}`),
    colours: cardColours(blog),
  };
  return { key: fileKey(blog.slug, cardName(spec)), spec };
}

export function blogCardUrl(blog: SiteBlog, baseUrl: string): string | null {
  const card = blogCard(blog);
  return card ? absoluteUrl(baseUrl, `/${card.key.slice(blog.slug.length + 1)}`) : null;
}

/** Whether a store key (under `<blog>/`) is a card's, the blog's or a post's. */
export function isCardKey(key: string): boolean {
  return /(^|\/)card-[0-9a-f]{12}\.png$/.test(key);
}

/** The prefix of the keys of the cards of the post at `slug` (stages/loadPostChange.ts reads them). */
export function postCardPrefix(blogSlug: string, slug: string): string {
  return fileKey(blogSlug, `${slug}/card-`);
}
