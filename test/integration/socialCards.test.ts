/**
 * Social cards (docs/publishing.md#social-cards), end to end over real HTTP through the site
 * server from the folder store: a published post without an og_image gets a 1200×630 PNG beside
 * its page, named absolutely in the page's head; its URL changes with what it shows and the old
 * one goes; unpublish and delete remove it; a given og_image wins; the home page gets the blog's
 * card; a rebuild never draws a card the store holds; a re-render after an upgrade draws the
 * cards of blogs published before them; a card drawn after a later change of its post, or left
 * in a big blog's backlog, never outlives what the pages name; a batch the store refused is
 * drawn by its job's retry. Every card is decoded by sharp and measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit } from '../../bench/harness/visit.js';
import { ObjectHashesRepo } from '../../src/db/objectHashesRepo.js';
import { SettingsRepo } from '../../src/db/settingsRepo.js';
import { CARDS_PER_JOB } from '../../src/publish/pipelines/drawSiteCards.js';
import { INLINE_CARDS } from '../../src/publish/stages/fullSite.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { FaultyStore } from '../support/faultyStore.js';
import { image } from '../support/images.js';
import { freshDataEnv, startTestApp, type TestApp } from '../support/testApp.js';

const HOST = 'cards.localhost:3000';
const ORIGIN = `http://${HOST}`;

let t: TestApp;
let blogId: string;
/** The folder store, with a switch that makes its writes fail (the big blog's failed batch). */
let store: FaultyStore;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'folio-cards-'));
  store = new FaultyStore(new FsSiteStore({ root: join(dataDir, 'public') }));
  store.putsOnly = true;
  t = await startTestApp({
    dataDir,
    env: { ...(await freshDataEnv(dataDir)), FOLIO_PUBLIC_SCHEME: 'http', FOLIO_SOCIAL_CARDS: 'on' },
    publicUrls: 'server',
    store,
  });
  blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'cards', name: 'Card Notes', description: 'Notes with pictures' } })).body.id;
  await settle();
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The jobs done, then the tick's: a change's cards are drawn by the `site_cards` job it
 * records, after its pages (pipelines/publishPostChange.ts).
 */
async function settle(): Promise<void> {
  await t.folio.idle();
  await t.folio.tick();
  await t.folio.idle();
}

const get = (path: string) => visit(t.baseUrl, HOST, path);

async function publish(title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', '/v1/posts', { blogId, body: { title, content: 'Some words.', status: 'published', ...extra } });
  expect(res.status, res.text).toBe(201);
  await settle();
  return res.body.slug;
}

async function update(slug: string, body: Record<string, unknown>): Promise<void> {
  const res = await t.request('PUT', `/v1/posts/${slug}`, { blogId, body });
  expect(res.status, res.text).toBe(200);
  await settle();
}

/** The `content` of a meta tag of the page at `path`. */
async function metaOf(path: string): Promise<Record<string, string>> {
  const page = await get(path);
  expect(page.status).toBe(200);
  const meta: Record<string, string> = {};
  for (const [, name, content] of page.text.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)) meta[name!] ??= content!;
  return meta;
}

/** The card the page names: its URL, and its pixels as served. */
async function cardOf(path: string): Promise<{ url: string; path: string; pixels: Buffer }> {
  const meta = await metaOf(path);
  const url = meta['og:image']!;
  expect(url.startsWith(`${ORIGIN}/`)).toBe(true);
  expect(url).toMatch(/\/card-[0-9a-f]{12}\.png$/);
  expect([meta['og:image:width'], meta['og:image:height'], meta['twitter:card'], meta['twitter:image']]).toEqual(['1200', '630', 'summary_large_image', url]);
  const cardPath = url.slice(ORIGIN.length);
  const res = await get(cardPath);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('image/png');
  expect(res.headers['cache-control']).toContain('immutable');
  const { data, info } = await sharp(res.body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([1200, 630]);
  return { url, path: cardPath, pixels: data };
}

function differing(a: Buffer, b: Buffer): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) count += 1;
  return count / a.length;
}

/** The colour of the card's top band, as `#rrggbb`. */
const bandColour = (pixels: Buffer) =>
  `#${[...pixels.subarray(3 * (1200 * 5 + 600), 3 * (1200 * 5 + 600) + 3)].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

const storedCards = async () => (await t.folio.store.list('cards/')).filter((key) => /card-[0-9a-f]{12}\.png$/.test(key)).sort();

describe('social cards', () => {
  it('a published post names its card, a 1200×630 PNG beside the page, in its head and JSON-LD', async () => {
    const slug = await publish('Walking the river path', { tags: ['walks', 'rivers'] });
    const card = await cardOf(`/${slug}`);
    expect(card.path.startsWith(`/${slug}/card-`)).toBe(true);
    expect((await get(`/${slug}`)).text).toContain(`"image":"${card.url}"`);
    expect(bandColour(card.pixels)).toBe('#0a58a6');
  });

  it('two Korean titles draw two different cards, with their text (not the same boxes)', async () => {
    const cardOfTitle = async (title: string) => cardOf(`/${encodeURIComponent(await publish(title))}`);
    const first = await cardOfTitle('가을 산책길에서 만난 다람쥐');
    const second = await cardOfTitle('겨울 바닷가에서 들은 파도의 노래');
    const third = await cardOfTitle('여름 계곡물에서 잡은 작은 물고기');
    expect(first.url).not.toBe(second.url);
    expect(differing(first.pixels, second.pixels)).toBeGreaterThan(0.005);
    // The same length, other syllables: tofu boxes would draw these two alike.
    expect(differing(second.pixels, third.pixels)).toBeGreaterThan(0.005);
  });

  it('a retitle, a retag and a new date give a new card at a new URL, and the old one is gone', async () => {
    const slug = await publish('First title', { tags: ['one'] });
    const before = await cardOf(`/${slug}`);
    await update(slug, { title: 'Second title' });
    const retitled = await cardOf(`/${slug}`);
    expect(retitled.url).not.toBe(before.url);
    expect(differing(before.pixels, retitled.pixels)).toBeGreaterThan(0.001);
    expect((await get(before.path)).status).toBe(404);
    await update(slug, { tags: ['one', 'two'] });
    const retagged = await cardOf(`/${slug}`);
    expect(retagged.url).not.toBe(retitled.url);
    expect((await get(retitled.path)).status).toBe(404);
    await update(slug, { published_at: '2025-06-01T09:00:00.000Z' });
    const redated = await cardOf(`/${slug}`);
    expect(redated.url).not.toBe(retagged.url);
    expect((await get(retagged.path)).status).toBe(404);
    await update(slug, { content: 'Other words, same card.' });
    expect((await cardOf(`/${slug}`)).url).toBe(redated.url);
    expect((await storedCards()).filter((key) => key.startsWith(`cards/${slug}/`))).toHaveLength(1);
  });

  it('a renamed post takes its card to the new address', async () => {
    const slug = await publish('Moving card');
    const before = await cardOf(`/${slug}`);
    await update(slug, { slug: 'moved-card' });
    const after = await cardOf('/moved-card');
    expect((await get(before.path)).status).toBe(404);
    expect(after.path.startsWith('/moved-card/card-')).toBe(true);
  });

  it('a rename and a retitle before the card is drawn leave only the card the page names', async () => {
    // No settle between the calls: the card of each change is drawn after the next one ran.
    const created = await t.request('POST', '/v1/posts', { blogId, body: { title: 'Quick card', content: 'Words.', status: 'published' } });
    expect(created.status, created.text).toBe(201);
    const renamed = await t.request('PUT', `/v1/posts/${created.body.slug}`, { blogId, body: { slug: 'quick-card-moved' } });
    expect(renamed.status, renamed.text).toBe(200);
    const retitled = await t.request('PUT', '/v1/posts/quick-card-moved', { blogId, body: { title: 'Quick card, retitled' } });
    expect(retitled.status, retitled.text).toBe(200);
    await settle();
    const card = await cardOf('/quick-card-moved');
    const cards = await storedCards();
    expect(cards.filter((key) => key.startsWith(`cards/${created.body.slug}/`))).toEqual([]);
    expect(cards.filter((key) => key.startsWith('cards/quick-card-moved/'))).toEqual([`cards${card.path}`]);
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], different: [], extra: [], undrawnCards: [] });
  });

  it('unpublishing and deleting remove the card', async () => {
    const first = await publish('Short lived card');
    const second = await publish('Deleted card');
    const cards = [await cardOf(`/${first}`), await cardOf(`/${second}`)];
    expect((await t.request('POST', `/v1/posts/${first}/unpublish`, { blogId })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/posts/${second}`, { blogId })).status).toBeLessThan(300);
    await settle();
    for (const card of cards) expect((await get(card.path)).status).toBe(404);
    expect((await storedCards()).some((key) => key.startsWith(`cards/${first}/`) || key.startsWith(`cards/${second}/`))).toBe(false);
  });

  it('a given og_image wins: no card is drawn, and one drawn before goes', async () => {
    const upload = await t.request('POST', '/v1/media', { blogId, raw: await image('png', 1600, 900), headers: { 'content-type': 'image/png' } });
    expect(upload.status, upload.text).toBe(201);
    const slug = await publish('With its own picture', { meta: { og_image: upload.body.url } });
    const meta = await metaOf(`/${slug}`);
    expect(meta['og:image']).toMatch(new RegExp(`^${ORIGIN}/media/`));
    expect(meta['twitter:card']).toBe('summary_large_image');
    expect((await storedCards()).some((key) => key.startsWith(`cards/${slug}/`))).toBe(false);

    const later = await publish('Picture given later');
    const card = await cardOf(`/${later}`);
    await update(later, { meta: { og_image: 'https://images.example.com/given.png' } });
    expect((await metaOf(`/${later}`))['og:image']).toBe('https://images.example.com/given.png');
    expect((await get(card.path)).status).toBe(404);
  });

  it("the home page names the blog's card; a new name or colour draws it and every post's card again", async () => {
    const home = await cardOf('/');
    expect(home.path).toMatch(/^\/card-[0-9a-f]{12}\.png$/);
    const post = await cardOf('/walking-the-river-path');
    const renamed = await t.request('PUT', `/v1/blogs/${blogId}`, {
      body: { name: 'Card Journal', theme_config: { customCss: ':root { --accent: #c0392b; }' } },
    });
    expect(renamed.status, renamed.text).toBe(200);
    await t.folio.tick();
    await settle();
    const newHome = await cardOf('/');
    const newPost = await cardOf('/walking-the-river-path');
    expect(newHome.url).not.toBe(home.url);
    expect(newPost.url).not.toBe(post.url);
    expect(bandColour(newPost.pixels)).toBe('#c0392b');
    for (const old of [home, post]) expect((await get(old.path)).status).toBe(404);
  });

  it('a rebuild draws no card the store holds, draws the missing ones, and verify finds none missing', async () => {
    const blog = (await t.folio.repos.blogs.findById(blogId))!;
    const cards = await storedCards();
    const [kept, lost] = cards;
    // A marker in place of one card shows whether it was drawn again; another is lost.
    const marker = Buffer.from('not drawn again');
    await t.folio.store.put(kept!, marker, { contentType: 'image/png', cacheControl: 'public, max-age=60' });
    await t.folio.store.delete(lost!);
    expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], undrawnCards: [lost] });
    await t.folio.publisher.rebuild(blog);
    expect((await t.folio.store.get(kept!))!.body.equals(marker)).toBe(true);
    expect((await t.folio.store.get(lost!))!.contentType).toBe('image/png');
    expect(await storedCards()).toEqual(cards);
    await t.folio.store.delete(kept!);
    await t.folio.publisher.rebuild(blog);
    expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], different: [], extra: [] });
  });

  it('the re-render after an upgrade draws cards for a blog published before them', async () => {
    // The store, and the hashes of what it holds, as a build without cards left them.
    const cards = await storedCards();
    expect(cards.length).toBeGreaterThan(5);
    await t.folio.store.deleteMany(cards);
    await new ObjectHashesRepo(t.folio.sql).deleteMany(blogId, cards);
    await new SettingsRepo(t.folio.sql).set('render_fingerprint', 'a-build-without-cards', '2026-01-01T00:00:00.000Z');
    expect(await t.folio.reRenderAfterUpgrade()).toBeGreaterThan(0);
    await t.folio.tick();
    await settle();
    expect(await storedCards()).toEqual(cards);
    await cardOf('/walking-the-river-path');
  });
});

describe('the cards of a big blog', () => {
  it('a full render leaves many missing cards to site_cards jobs, which draw them a batch per job', async () => {
    const many = (await t.request('POST', '/v1/blogs', { body: { slug: 'many', name: 'Many Cards' } })).body.id as string;
    const count = INLINE_CARDS + CARDS_PER_JOB + 3;
    for (let i = 0; i < count; i++) {
      t.clock.advance(60_000);
      const res = await t.request('POST', '/v1/posts', { blogId: many, body: { title: `Card number ${i}`, content: 'Words.', status: 'published' } });
      expect(res.status, res.text).toBe(201);
    }
    await t.folio.idle();
    // The publishes' cards are drawn by site_cards jobs, a batch per tick.
    const pending = async () => (await t.folio.repos.jobs.listOpenForBlog(many)).filter((job) => job.kind === 'site_cards');
    for (let ticks = 0; (await pending()).length > 0 && ticks < 10; ticks++) {
      await t.folio.tick();
      await t.folio.idle();
    }
    const cardsOfMany = async () => (await t.folio.store.list('many/')).filter((key) => /card-[0-9a-f]{12}\.png$/.test(key));
    // As a build without cards left the store.
    const all = await cardsOfMany();
    expect(all).toHaveLength(count + 1);
    await t.folio.store.deleteMany(all);
    await new ObjectHashesRepo(t.folio.sql).deleteMany(many, all);

    const blog = (await t.folio.repos.blogs.findById(many))!;
    await t.folio.publisher.rebuild(blog);
    // More than INLINE_CARDS are missing: the render leaves them all to site_cards jobs.
    expect((await t.folio.publisher.verify(blog)).undrawnCards).toHaveLength(count + 1);
    expect(await pending()).toHaveLength(1);
    // The first batch fails to write: the job's retry, once its backoff has passed, draws it again.
    store.failAfterPuts = store.puts;
    await t.folio.tick();
    await t.folio.idle();
    store.failAfterPuts = null;
    expect((await pending())[0]).toMatchObject({ attempts: 1 });
    t.clock.advance(60_000);
    // Each tick runs one batch, newest first, which records the next while cards are missing.
    await t.folio.tick();
    await t.folio.idle();
    const left = (await t.folio.publisher.verify(blog)).undrawnCards;
    expect(left).toHaveLength(count + 1 - CARDS_PER_JOB);
    const postsLeft = left.map((key) => Number(/^many\/card-number-(\d+)\/card-/.exec(key)?.[1]));
    expect(postsLeft.sort((a, b) => a - b)).toEqual(Array.from({ length: count + 1 - CARDS_PER_JOB }, (_, i) => i));
    // Two posts whose cards wait in the jobs' backlog change: one renamed, one unpublished.
    const moved = await t.request('PUT', '/v1/posts/card-number-0', { blogId: many, body: { slug: 'card-number-zero' } });
    expect(moved.status, moved.text).toBe(200);
    const unpublished = await t.request('POST', '/v1/posts/card-number-1/unpublish', { blogId: many });
    expect(unpublished.status, unpublished.text).toBe(200);
    await t.folio.idle();
    for (let ticks = 0; (await pending()).length > 0 && ticks < 5; ticks++) {
      await t.folio.tick();
      await t.folio.idle();
    }
    expect(await pending()).toHaveLength(0);
    const gone = (key: string) => key.startsWith('many/card-number-0/') || key.startsWith('many/card-number-1/');
    const now = await cardsOfMany();
    expect(now.filter(gone)).toEqual([]);
    expect(now.filter((key) => key.startsWith('many/card-number-zero/'))).toHaveLength(1);
    expect(now.filter((key) => !key.startsWith('many/card-number-zero/')).sort()).toEqual(all.filter((key) => !gone(key)).sort());
    expect(await t.folio.publisher.verify(blog)).toMatchObject({ missing: [], different: [], extra: [], undrawnCards: [] });
    // Some sixty cards on a shared VM: seconds alone, longer beside other suites.
  }, 300_000);
});

describe('FOLIO_SOCIAL_CARDS=off', () => {
  it('draws no card and names none: pages keep only a given og_image', async () => {
    const off = await startTestApp({ env: { FOLIO_PUBLIC_SCHEME: 'http', FOLIO_SOCIAL_CARDS: 'off' }, publicUrls: 'server' });
    try {
      const id = (await off.request('POST', '/v1/blogs', { body: { slug: 'plain', name: 'Plain Notes' } })).body.id;
      const res = await off.request('POST', '/v1/posts', { blogId: id, body: { title: 'No picture', content: 'Words.', status: 'published' } });
      expect(res.status, res.text).toBe(201);
      await off.folio.idle();
      for (const path of ['/', '/no-picture']) {
        const page = await visit(off.baseUrl, 'plain.localhost:3000', path);
        expect(page.status).toBe(200);
        expect(page.text).not.toContain('og:image');
        expect(page.text).not.toContain('card-');
      }
      const stored = await off.folio.store.list('plain/');
      expect(stored.filter((key) => key.includes('card-'))).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
