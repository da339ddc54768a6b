import type { Media } from '../../db/mediaRepo.js';
import { CONTENT_TYPES, MEDIA_DIR, OG_HEIGHT, OG_WIDTH, ogName, originalName, variantsOf, imageOf } from '../../media/mediaNames.js';

/** `origin`: the blog's public origin (its custom domain once active). */
export function presentMedia(media: Media, origin: string) {
  const image = imageOf(media);
  const url = (name: string) => `${origin}/${MEDIA_DIR}/${name}`;
  return {
    id: media.id,
    url: url(originalName(image)),
    width: media.width,
    height: media.height,
    content_type: CONTENT_TYPES[media.format],
    bytes: media.bytes,
    stored_bytes: media.storedBytes,
    created_at: media.createdAt,
    variants: variantsOf(image).map((v) => ({ width: v.width, height: v.height, content_type: CONTENT_TYPES[v.format], url: url(v.name) })),
    og_image: { width: OG_WIDTH, height: OG_HEIGHT, content_type: 'image/jpeg', url: url(ogName(image)) },
  };
}
