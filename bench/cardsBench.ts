/**
 * `npm run bench -- --only cards`: drawing social cards (src/publish/cards/): one card in this
 * process (satori's layout, then sharp's rasterising and PNG encoding), the first card of a
 * thread (which parses the fonts), and cards through the shared worker pool as a full render's
 * `site_cards` jobs draw them, for one account (which may use all workers but one).
 *
 * Anchor, measured in the same run: sharp in this process turning an SVG of the card's size
 * without text (a band and a background) into a PNG, the part of a card that is not text. The
 * ratio says what the text costs on top; the load average says how busy the machine was.
 */
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { HeavyWork } from '../src/heavyWork/heavyWork.js';
import { PooledCardDrawer } from '../src/publish/cards/cardDrawer.js';
import { postCard, type CardSpec } from '../src/publish/cards/cardSpec.js';
import { drawCard } from '../src/publish/cards/drawCard.js';
import type { SiteBlog } from '../src/domain/siteTypes.js';
import { percentile } from './harness/stats.js';
import type { BenchRow } from './table.js';

const CARDS = 20;
const POOLED = 40;

const blog: SiteBlog = {
  id: 'bench',
  slug: 'bench',
  name: 'Bench Notes',
  description: '',
  baseUrl: 'https://bench.example.com',
  themeConfig: {},
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function spec(i: number): CardSpec {
  const title =
    i % 2 ? `How post number ${i} moved to a queue of small services without downtime` : `${i}번째 글: 작은 서비스들의 큐로 옮기면서 멈추지 않은 이야기`;
  const post = {
    id: `p${i}`,
    slug: `p${i}`,
    title,
    metaDescription: '',
    ogImageUrl: null,
    tags: ['one', 'two', 'three'],
    publishedAt: '2026-03-01T09:00:00.000Z',
    createdAt: '',
    updatedAt: '',
  };
  return postCard(blog, post)!.spec;
}

const plain = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="1200" height="630" fill="#fdfcfa"/><rect width="1200" height="18" fill="#0a58a6"/></svg>',
);

export async function runCardsBench(): Promise<BenchRow[]> {
  const area = 'social cards (1200 × 630 PNG)';
  const anchor: number[] = [];
  for (let i = 0; i < CARDS; i++) {
    const started = performance.now();
    await sharp(plain).png({ compressionLevel: 6 }).toBuffer();
    anchor.push(performance.now() - started);
  }
  let started = performance.now();
  await drawCard(spec(0));
  const first = performance.now() - started;
  const times: number[] = [];
  let bytes = 0;
  for (let i = 1; i <= CARDS; i++) {
    started = performance.now();
    bytes += (await drawCard(spec(i))).byteLength;
    times.push(performance.now() - started);
  }
  const heavy = new HeavyWork();
  let pooledMs = 0;
  try {
    const drawer = new PooledCardDrawer(heavy);
    // The workers' first cards parse the fonts: drawn before the clock starts.
    await Promise.all([drawer.draw('warm', spec(0)), drawer.draw('warm', spec(1))]);
    started = performance.now();
    await Promise.all(Array.from({ length: POOLED }, (_, i) => drawer.draw('one-account', spec(i))));
    pooledMs = performance.now() - started;
  } finally {
    await heavy.close();
  }
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  const p50 = percentile(times, 0.5);
  return [
    { area, measure: 'anchor: sharp in process, the card without text, p50', value: `${percentile(anchor, 0.5).toFixed(0)} ms`, target: `load ${load}` },
    { area, measure: 'one card in process, p50', value: `${p50.toFixed(0)} ms`, target: `card / anchor ${(p50 / percentile(anchor, 0.5)).toFixed(1)}x` },
    { area, measure: "a thread's first card (parses the fonts)", value: `${first.toFixed(0)} ms` },
    {
      area,
      measure: `${POOLED} cards of one account on the worker pool`,
      value: `${(pooledMs / POOLED).toFixed(0)} ms per card`,
      target: `${((POOLED * 1000) / pooledMs).toFixed(1)} cards/s`,
    },
    { area, measure: 'PNG size, mean', value: `${(bytes / CARDS / 1024).toFixed(0)} KB` },
  ];
}
