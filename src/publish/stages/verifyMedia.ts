/**
 * `folio site verify` for a blog's uploaded images: every object of every image must be in the
 * store (`missing`) and start as an image of its format (`different`: empty, truncated to
 * nothing, or overwritten with something else). Only the first bytes of each are read, a few at
 * a time, so a blog with thousands of images is checked in about one small read per object.
 */
import type { Media } from '../../db/mediaRepo.js';
import { forEachConcurrently } from '../../lib/concurrently.js';
import { hasImageSignature, SIGNATURE_BYTES } from '../../media/imageSignature.js';
import { MEDIA_DIR, ogName, originalName, variantsOf, type ImageFormat, type MediaImage } from '../../media/mediaNames.js';
import type { SiteStore } from '../../storage/siteStore.js';

/** Stored image objects read at once. */
const READS = 16;

export interface MediaCheck {
  keys: string[];
  missing: string[];
  different: string[];
}

/** Every stored object of the images, with the format it must be in. */
function objectsOf(slug: string, media: readonly Media[]): { key: string; format: ImageFormat }[] {
  return media.flatMap((row) => {
    const image: MediaImage = { hash: row.hash, width: row.width, height: row.height, format: row.format };
    const names: [string, ImageFormat][] = [
      [originalName(image), image.format],
      ...variantsOf(image).map((v): [string, ImageFormat] => [v.name, v.format]),
      [ogName(image), 'jpeg'],
    ];
    return names.map(([name, format]) => ({ key: `${slug}/${MEDIA_DIR}/${name}`, format }));
  });
}

export async function verifyMedia(store: Pick<SiteStore, 'getRange'>, slug: string, media: readonly Media[]): Promise<MediaCheck> {
  const objects = objectsOf(slug, media);
  const findings = new Array<'missing' | 'different' | null>(objects.length).fill(null);
  await forEachConcurrently(objects.keys(), READS, async (i) => {
    const object = objects[i]!;
    const head = await store.getRange(object.key, 0, SIGNATURE_BYTES);
    if (head === null) findings[i] = 'missing';
    else if (!hasImageSignature(head, object.format)) findings[i] = 'different';
  });
  // In the database's order, whatever order the reads ended in.
  return {
    keys: objects.map((object) => object.key),
    missing: objects.filter((_, i) => findings[i] === 'missing').map((object) => object.key),
    different: objects.filter((_, i) => findings[i] === 'different').map((object) => object.key),
  };
}
