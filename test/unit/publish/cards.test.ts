/**
 * Social cards (publish/cards/): what a card shows follows the blog and the post, every drawn
 * field is in the hash that names it, the theme colours follow customCss, and a drawn card is a
 * 1200×630 PNG whose pixels follow its text (Korean included: the font ships with the package).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawCard } from '../../../src/publish/cards/drawCard.js';
import {
  CARD_HEIGHT,
  CARD_WIDTH,
  THEME_COLOURS,
  blogCard,
  blogCardUrl,
  cardHash,
  isCardKey,
  postCard,
  postCardUrl,
  type CardSpec,
} from '../../../src/publish/cards/cardSpec.js';
import { cardTree, type CardElement } from '../../../src/publish/cards/cardTree.js';
import type { SiteBlog, SitePostSummary } from '../../../src/domain/siteTypes.js';

const blog: SiteBlog = {
  id: 'b1',
  slug: 'cards',
  name: 'Field Notes',
  description: 'Notes from the field',
  baseUrl: 'https://notes.example.com',
  themeConfig: {},
  updatedAt: '2026-03-01T00:00:00.000Z',
};
const post: SitePostSummary = {
  id: 'p1',
  slug: 'hello',
  title: 'Hello, cards',
  metaDescription: '',
  ogImageUrl: null,
  tags: ['one', 'two', 'three', 'four'],
  publishedAt: '2026-03-01T09:00:00.000Z',
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:00:00.000Z',
};

/** Every text the tree shows, in order. */
function texts(element: CardElement): string[] {
  const { children } = element.props;
  if (typeof children === 'string') return [children];
  return (children ?? []).flatMap(texts);
}

async function pixels(spec: CardSpec): Promise<{ data: Buffer; width: number; height: number; format: string | undefined }> {
  const png = Buffer.from(await drawCard(spec));
  const { format } = await sharp(png).metadata();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, format };
}

/** Share of bytes that differ between two raw images of one size. */
function differing(a: Buffer, b: Buffer): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) count += 1;
  return count / a.length;
}

describe('card spec', () => {
  it('a post card shows the blog name, the title, three tags and the date, beside the post', () => {
    const card = postCard(blog, post)!;
    expect(card.key).toMatch(/^cards\/hello\/card-[0-9a-f]{12}\.png$/);
    expect(isCardKey(card.key)).toBe(true);
    expect(texts(cardTree(card.spec))).toEqual(['Field Notes', 'Hello, cards', '#one', '#two', '#three', 'March 1, 2026']);
    expect(postCardUrl(blog, 'https://notes.example.com', post)).toBe(`https://notes.example.com/hello/${card.key.split('/').at(-1)}`);
  });

  it('a Korean title gets a Korean date and keeps words whole', () => {
    const card = postCard(blog, { ...post, title: '한국어 제목입니다' })!;
    expect(card.spec.lang).toBe('ko');
    expect(card.spec.date).toBe('2026년 3월 1일');
    expect(JSON.stringify(cardTree(card.spec))).toContain('"wordBreak":"keep-all"');
  });

  it('is drawn for no post and no blog when the operator turned cards off (FOLIO_SOCIAL_CARDS=off)', () => {
    const off = { ...blog, cards: false as const };
    expect(blogCard(off)).toBeNull();
    expect(blogCardUrl(off, 'https://notes.example.com')).toBeNull();
    expect(postCard(off, { ...post, ogImageUrl: null })).toBeNull();
  });

  it('the blog card shows its name and description, at the blog root', () => {
    const card = blogCard(blog)!;
    expect(card.key).toMatch(/^cards\/card-[0-9a-f]{12}\.png$/);
    expect(texts(cardTree(card.spec))).toEqual(['Field Notes', 'Notes from the field', '']);
    expect(blogCardUrl(blog, 'https://notes.example.com')).toBe(`https://notes.example.com/${card.key.slice('cards/'.length)}`);
  });

  it('a given og_image wins: no card', () => {
    expect(postCard(blog, { ...post, ogImageUrl: 'https://img.example.com/a.png' })).toBeNull();
    // One that is no http(s) URL gives the page no image, so the card stands in.
    expect(postCard(blog, { ...post, ogImageUrl: 'javascript:alert(1)' })).not.toBeNull();
  });

  it('the hash covers every drawn field, and nothing else', () => {
    const base = postCard(blog, post)!;
    const changes: [string, SiteBlog, SitePostSummary][] = [
      ['title', blog, { ...post, title: 'Another title' }],
      ['tags', blog, { ...post, tags: ['one', 'two', 'other'] }],
      ['date', blog, { ...post, publishedAt: '2026-03-02T09:00:00.000Z' }],
      ['blog name', { ...blog, name: 'Other Notes' }, post],
      ['colours', { ...blog, themeConfig: { customCss: ':root { --accent: #c0392b; }' } }, post],
    ];
    for (const [field, b, p] of changes) expect(postCard(b, p)!.key, field).not.toBe(base.key);
    const unchanged: [string, SiteBlog, SitePostSummary][] = [
      ['a fourth tag', blog, { ...post, tags: ['one', 'two', 'three', 'five'] }],
      ['the time of day', blog, { ...post, publishedAt: '2026-03-01T18:00:00.000Z' }],
      ['the description', blog, { ...post, metaDescription: 'new' }],
      ['the blog description', { ...blog, description: 'other' }, post],
    ];
    for (const [field, b, p] of unchanged) expect(postCard(b, p)!.key, field).toBe(base.key);
    const spec = base.spec;
    for (const field of ['kicker', 'title', 'subtitle', 'date'] as const)
      expect(cardHash({ ...spec, [field]: `${spec[field]}x` }), field).not.toBe(cardHash(spec));
    expect(cardHash({ ...spec, lang: 'ko' })).not.toBe(cardHash(spec));
    expect(cardHash({ ...spec, colours: { ...spec.colours, fg: '#000000' } })).not.toBe(cardHash(spec));
  });

  it('colours follow the custom properties customCss sets to hex colours, first declaration first', () => {
    const css = ':root { --accent: #C0392B; --bg:#fff; } @media (prefers-color-scheme: dark) { :root { --accent: #ffffff; } } .x { --fg: red; }';
    const card = postCard({ ...blog, themeConfig: { customCss: css } }, post)!;
    expect(card.spec.colours).toEqual({ ...THEME_COLOURS, accent: '#c0392b', bg: '#fff' });
    expect(postCard(blog, post)!.spec.colours).toEqual(THEME_COLOURS);
  });
});

describe('drawn card', () => {
  it('is a 1200×630 PNG; the title, the Korean too, is drawn with the packaged font', async () => {
    const english = postCard(blog, post)!.spec;
    const korean = postCard(blog, { ...post, title: '가을 산책길에서 만난 다람쥐' })!.spec;
    const drawn = await pixels(english);
    expect([drawn.format, drawn.width, drawn.height]).toEqual(['png', CARD_WIDTH, CARD_HEIGHT]);
    const ko = await pixels(korean);
    // Two Korean titles of the same length: tofu boxes would draw them alike.
    const ko2 = await pixels(postCard(blog, { ...post, title: '겨울 바닷가에서 들은 파도의 노래' })!.spec);
    const sameLength = await pixels(postCard(blog, { ...post, title: '여름 계곡물에서 잡은 작은 물고기' })!.spec);
    expect(differing(ko.data, drawn.data)).toBeGreaterThan(0.01);
    expect(differing(ko2.data, sameLength.data)).toBeGreaterThan(0.005);
    // The Korean title is really drawn: spaces in its place leave the card without it.
    const blank = await pixels({ ...korean, title: ' '.repeat([...korean.title].length) });
    expect(differing(ko.data, blank.data)).toBeGreaterThan(0.01);
    if (process.env.FOLIO_CARD_SAMPLES) {
      for (const [name, spec] of [
        ['english', english],
        ['korean', korean],
        ['blog', blogCard(blog)!.spec],
      ] as const) {
        writeFileSync(join(process.env.FOLIO_CARD_SAMPLES, `${name}.png`), await drawCard(spec));
      }
    }
  });
});
