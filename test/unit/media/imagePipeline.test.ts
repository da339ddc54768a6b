import { describe, expect, it } from 'vitest';
import { ImagePipeline } from '../../../src/media/imagePipeline.js';
import { gifIsComplete } from '../../../src/media/gifStructure.js';
import { avifBomb, gifBomb, image, truncatedGif } from '../../support/images.js';
import { BadRequestError } from '../../../src/domain/errors.js';

describe('ImagePipeline budgets', () => {
  it('stops an image that takes longer than its time budget, with a 400 that says so', async () => {
    // 4000 × 3000 is within the pixel budget; decoding and encoding it as AVIF takes seconds.
    const slow = await avifBomb(4000, 3000);
    const pipeline = new ImagePipeline({ timeLimitMs: 1000 });
    const started = Date.now();
    const err = await pipeline.encode(slow, 'avif', '0'.repeat(20)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toBe('the image took more than 1 s to process; send a smaller or simpler image');
    // Stopped by the budget, not after the whole image (several seconds more).
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it('takes the pixel budget as a setting', async () => {
    const pipeline = new ImagePipeline({ maxPixels: 1_000_000 });
    const err = await pipeline.encode(await image('png', 1001, 1000), 'png', '0'.repeat(20)).catch((e: unknown) => e);
    expect((err as Error).message).toContain('1001 × 1000 pixels; images may be at most 16383 pixels on a side and 1 megapixels');
    const ok = await pipeline.encode(await image('png', 1000, 1000), 'png', '0'.repeat(20));
    expect(ok.image).toMatchObject({ width: 1000, height: 1000 });
  }, 60_000);
});

describe('gifIsComplete', () => {
  it('is true for whole GIFs and false for every cut', async () => {
    for (const gif of [await image('gif', 300, 200), await gifBomb(3, 64)]) {
      expect(gifIsComplete(gif)).toBe(true);
      for (let cut = 1; cut < gif.length; cut += Math.max(1, Math.floor(gif.length / 97)))
        expect(gifIsComplete(gif.subarray(0, cut)), `cut at ${cut}`).toBe(false);
    }
    expect(gifIsComplete(await truncatedGif())).toBe(false);
  });
});
