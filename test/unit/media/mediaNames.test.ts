import { describe, expect, it } from 'vitest';
import { mediaHashesIn, parseMediaUrl, socialImageOf, thumbnailOf, variantWidths } from '../../../src/media/mediaNames.js';
import { pictureHtml } from '../../../src/media/pictureHtml.js';

const HASH = '0123456789abcdef0123';

describe('media names', () => {
  it('reads the image from a media URL or path, keeping whatever comes before /media/', () => {
    expect(parseMediaUrl(`https://b.example.com/media/${HASH}-4000x3000.jpg`)).toEqual({
      prefix: 'https://b.example.com/media/',
      image: { hash: HASH, width: 4000, height: 3000, format: 'jpeg' },
    });
    expect(parseMediaUrl(`/media/${HASH}-10x20.avif`)?.image).toEqual({ hash: HASH, width: 10, height: 20, format: 'avif' });
    for (const url of [
      `/media/${HASH}-4000x3000-480.jpg`, // a variant, not the image
      `/media/${HASH}-0x3000.jpg`,
      `/media/${HASH}-4000x3000.svg`,
      `/media/${HASH.slice(1)}-4000x3000.jpg`,
      `/media/${HASH}-4000x3000.jpg?x=1`,
      `/other/${HASH}-4000x3000.jpg`,
      'https://example.com/photo.jpg',
    ]) {
      expect(parseMediaUrl(url), url).toBeNull();
    }
  });

  it('has variants only narrower than the image, and the image itself when under 1600 px', () => {
    expect(variantWidths(4000)).toEqual([480, 960, 1600]);
    expect(variantWidths(1600)).toEqual([480, 960, 1600]);
    expect(variantWidths(1000)).toEqual([480, 960, 1000]);
    expect(variantWidths(300)).toEqual([300]);
  });

  it('finds the images a post names, once each', () => {
    const md = `![a](/media/${HASH}-10x10.png) ![b](https://x/media/${HASH}-10x10-480.webp) ![c](/media/ffffffffffffffffffff-1x1.gif) /media/nothex-1x1.png`;
    expect(mediaHashesIn(md).sort()).toEqual([HASH, 'ffffffffffffffffffff']);
  });

  it('uses the og crop for social images and the narrowest variant for thumbnails; other URLs unchanged', () => {
    expect(socialImageOf(`https://b.example.com/media/${HASH}-4000x3000.png`)).toEqual({
      url: `https://b.example.com/media/${HASH}-4000x3000-og.jpg`,
      width: 1200,
      height: 630,
    });
    expect(socialImageOf('https://example.com/a.png')).toEqual({ url: 'https://example.com/a.png' });
    expect(thumbnailOf(`/media/${HASH}-4000x3000.png`)).toBe(`/media/${HASH}-4000x3000-480.png`);
    expect(thumbnailOf('https://example.com/a.png')).toBe('https://example.com/a.png');
  });

  it('draws a picture with escaped attributes, and nothing for other URLs', () => {
    const html = pictureHtml(`"/><script>/media/${HASH}-800x600.gif`, 'a "quoted" <alt>', null)!;
    expect(html).not.toContain('<script>');
    expect(html).toContain('alt="a &quot;quoted&quot; &lt;alt&gt;"');
    expect(html).toContain('<source type="image/webp"');
    expect(html).not.toContain('image/avif'); // GIF: WebP and GIF only
    expect(pictureHtml('https://example.com/a.gif', 'x', null)).toBeNull();
  });
});
