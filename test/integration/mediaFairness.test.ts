/**
 * One account's flood of slow images never holds another account's upload (issue 27 item 22):
 * the image pipeline takes accounts in turn, not first come first served, and refuses only the
 * flooding account once its queue is full. This file bounds no event-loop delay, so it runs
 * beside the others, not last (hostileInputs.test.ts measures the hostile images' delay).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBlog, expectError } from '../support/factories.js';
import { avifBomb, image } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const upload = (key: string, blogId: string, bytes: Buffer, contentType: string) =>
  t.request('POST', '/v1/media', { key, blogId, raw: bytes, headers: { 'content-type': contentType } });

describe('the image pipeline shared by accounts', () => {
  it('one account’s queue of slow images never holds another account’s upload: it is taken next, and only the flooding account is refused', async () => {
    const flooder = await buildBlog(t);
    const other = await buildBlog(t);
    // Within the pixel budget but slow to decode and encode (AVIF): each keeps the pipeline busy.
    const slow = await Promise.all(Array.from({ length: 6 }, (_, i) => avifBomb(2000 + i, 2000)));
    const order: string[] = [];
    const sent = slow.map((bytes, i) =>
      upload(flooder.actor.key, flooder.id, bytes, 'image/avif').then((res) => {
        order.push(`flood-${i}`);
        return res;
      }),
    );
    // The other account uploads once the flood is queued: one image running, four waiting.
    while (t.folio.media.queueStats().waiting < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    const beside = await upload(other.actor.key, other.id, await image('png', 64, 64), 'image/png');
    order.push('beside');
    expect(beside.status, beside.text).toBe(201);
    const answers = await Promise.all(sent);
    const statuses = answers.map((res) => res.status).sort();
    // One running and four waiting per account; the sixth is refused, for this account only.
    expect(statuses).toEqual([201, 201, 201, 201, 201, 503]);
    const refused = answers.find((res) => res.status === 503)!;
    expectError(refused, 503, 'service_unavailable');
    expect(refused.headers.get('retry-after')).toBe('5');
    // Fair, not first come first served: the other account's upload finished before most of the flood.
    expect(order.indexOf('beside')).toBeLessThan(order.length - 3);
  }, 120_000);
});
