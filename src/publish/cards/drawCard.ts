/**
 * Draws a card: satori lays the element tree (cardTree.ts) out with the Pretendard font into an
 * SVG of glyph paths, and sharp turns that into a PNG, so no system font is ever needed. Runs on
 * the shared worker pool (src/heavyWork/heavyTasks.ts): satori's layout is synchronous work of
 * tens of milliseconds, and parsing the fonts the first time takes far more. Both libraries are
 * loaded on the first card, so a worker that never draws one never loads them.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { CARD_HEIGHT, CARD_WIDTH, type CardSpec } from './cardSpec.js';
import { CARD_FONT, cardTree } from './cardTree.js';

/** Pretendard (SIL Open Font License 1.1), from the npm package: Korean and Latin. */
const FONT_FILES = [
  { weight: 500, file: 'pretendard/dist/public/static/Pretendard-Medium.otf' },
  { weight: 600, file: 'pretendard/dist/public/static/Pretendard-SemiBold.otf' },
  { weight: 700, file: 'pretendard/dist/public/static/Pretendard-Bold.otf' },
] as const;

interface Drawer {
  svg(spec: CardSpec): Promise<string>;
  png(svg: string): Promise<Buffer>;
}

let drawer: Promise<Drawer> | null = null;

/**
 * Once per thread: the fonts are read and handed to satori as one array, which satori parses
 * once and keeps for every later card.
 */
async function loadDrawer(): Promise<Drawer> {
  // Resolved from this module's place, so the same lookup works from dist/src and the Docker
  // image; required, not imported, so the server bundle (scripts/bundleServer.mjs) leaves both
  // libraries in node_modules (sharp's native addon must stay there).
  const require = createRequire(import.meta.url);
  const satori = (require('satori') as typeof import('satori')).default;
  const sharp = require('sharp') as typeof import('sharp');
  const data = await Promise.all(FONT_FILES.map((font) => readFile(require.resolve(font.file))));
  const fonts = FONT_FILES.map((font, i) => ({ name: CARD_FONT, data: data[i]!, weight: font.weight, style: 'normal' as const }));
  return {
    // satori's element type is React's; the tree is the plain-object form it accepts.
    svg: (spec) => satori(cardTree(spec) as unknown as Parameters<typeof satori>[0], { width: CARD_WIDTH, height: CARD_HEIGHT, fonts }),
    // zlib's level 9 took as long as the rasterising again for a third fewer bytes (34 KB
    // against 45 KB a card): the default level 6 instead, as a big blog's first cards are many.
    png: (svg) => sharp(Buffer.from(svg)).png({ compressionLevel: 6 }).toBuffer(),
  };
}

/** The card as PNG bytes, CARD_WIDTH × CARD_HEIGHT. */
export async function drawCard(spec: CardSpec): Promise<Uint8Array> {
  if (!drawer) {
    drawer = loadDrawer();
    // A failed load (a missing font file) is tried again by the next card.
    drawer.catch(() => {
      drawer = null;
    });
  }
  const draw = await drawer;
  const png = await draw.png(await draw.svg(spec));
  // A buffer of its own: only an own ArrayBuffer moves to the main thread without a copy.
  return new Uint8Array(png);
}
