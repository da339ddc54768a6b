import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visit as visitHost } from '../../bench/harness/visit.js';
import { avifBomb, gifBomb, image, pngBomb, pngHeaderOnly, truncatedGif, webpBomb, type Format } from '../support/images.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { buildAccount, buildBlog, buildPost, createKey, expectError, expectFieldError, postPath, type BuiltBlog } from '../support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const CONTENT_TYPE: Record<Format, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif' };

function upload(blog: BuiltBlog, bytes: Buffer, contentType: string, key = blog.actor.key) {
  return t.request('POST', '/v1/media', { key, blogId: blog.id, raw: bytes, headers: { 'content-type': contentType } });
}

const objectKeys = async (blog: BuiltBlog): Promise<string[]> => t.folio.store.list(`${blog.slug}/media/`);
const stored = async (blog: BuiltBlog, url: string): Promise<Buffer> => {
  const object = await t.folio.store.get(`${blog.slug}${new URL(url).pathname}`);
  expect(object, url).not.toBeNull();
  return object!.body;
};

describe('POST /v1/media', () => {
  for (const format of ['jpeg', 'png', 'webp', 'gif', 'avif'] as const) {
    it(`stores a ${format} re-encoded, without its metadata, with responsive variants and an og:image crop`, async () => {
      const blog = await buildBlog(t);
      const bytes = await image(format, 2000, 1000);
      const res = await upload(blog, bytes, CONTENT_TYPE[format]);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ width: 2000, height: 1000, content_type: CONTENT_TYPE[format], bytes: bytes.length });
      expect(res.body.url).toMatch(new RegExp(`^http://${blog.slug}\\.localhost:3000/media/[0-9a-f]{20}-2000x1000\\.${format === 'jpeg' ? 'jpg' : format}$`));
      const widths = [...new Set(res.body.variants.map((v: { width: number }) => v.width))];
      expect(widths).toEqual([480, 960, 1600]);
      const types = new Set(res.body.variants.map((v: { content_type: string }) => v.content_type));
      expect(types).toEqual(new Set(format === 'gif' ? ['image/webp', 'image/gif'] : ['image/avif', 'image/webp', CONTENT_TYPE[format]]));
      // Every object named exists, is what it says, has the announced size and no EXIF/GPS.
      for (const ref of [{ ...res.body, content_type: res.body.content_type }, ...res.body.variants, res.body.og_image]) {
        const meta = await sharp(await stored(blog, ref.url), { animated: true }).metadata();
        expect(meta.width, ref.url).toBe(ref.width);
        expect(meta.pageHeight ?? meta.height, ref.url).toBe(ref.height);
        expect(meta.exif, ref.url).toBeUndefined();
      }
      expect(res.body.og_image).toMatchObject({ width: 1200, height: 630, content_type: 'image/jpeg' });
      if (format === 'gif') expect((await sharp(await stored(blog, res.body.variants[0].url), { animated: true }).metadata()).pages).toBe(2);
      // Served by the site server with immutable caching.
      const served = await visitHost(t.baseUrl, `${blog.slug}.localhost:3000`, new URL(res.body.url).pathname, { method: 'HEAD' });
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe(CONTENT_TYPE[format]);
      expect(served.headers['cache-control']).toContain('immutable');
    });
  }

  it('stores the same bytes once: a second upload answers 200 with the same image', async () => {
    const blog = await buildBlog(t);
    const bytes = await image('jpeg', 800, 600);
    const first = await upload(blog, bytes, 'image/jpeg');
    expect(first.status).toBe(201);
    const keys = await objectKeys(blog);
    const again = await upload(blog, bytes, 'image/jpeg');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await objectKeys(blog)).toEqual(keys);
    expect((await t.request('GET', '/v1/media', { key: blog.actor.key, blogId: blog.id })).body.pagination.total).toBe(1);
  });

  it('keeps a small image at its own width: no variant wider than the image', async () => {
    const blog = await buildBlog(t);
    const res = await upload(blog, await image('png', 300, 200), 'image/png');
    expect(res.status).toBe(201);
    expect([...new Set(res.body.variants.map((v: { width: number }) => v.width))]).toEqual([300]);
  });

  it('answers bad input with a clear 4xx and stores nothing, refusing oversized images from their header', async () => {
    const blog = await buildBlog(t);
    const jpeg = await image('jpeg', 1200, 900);
    const cases: [string, Buffer, string, number, string][] = [
      ['empty body', Buffer.alloc(0), 'image/png', 400, 'bad_request'],
      ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml', 415, 'unsupported_media_type'],
      ['JSON', Buffer.from('{}'), 'application/json', 415, 'unsupported_media_type'],
      ['no content type', jpeg, '', 415, 'unsupported_media_type'],
      [
        'multipart form',
        Buffer.concat([
          Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
          jpeg,
          Buffer.from('\r\n--b--\r\n'),
        ]),
        'multipart/form-data; boundary=b',
        415,
        'unsupported_media_type',
      ],
      ['JPEG sent as PNG', jpeg, 'image/png', 400, 'bad_request'],
      ['truncated JPEG', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg', 400, 'bad_request'],
      ['random bytes', Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251)), 'image/webp', 400, 'bad_request'],
      ['50,000 × 50,000 header', pngHeaderOnly(50_000, 50_000), 'image/png', 400, 'bad_request'],
      ['decompression bomb', await pngBomb(12_000), 'image/png', 400, 'bad_request'],
      ['SVG named as PNG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), 'image/png', 415, 'unsupported_media_type'],
    ];
    for (const [what, bytes, type, status, code] of cases) {
      const res = await t.request('POST', '/v1/media', { key: blog.actor.key, blogId: blog.id, raw: bytes, headers: type ? { 'content-type': type } : {} });
      expectError(res, status, code as never);
      if (what.includes('50,000')) expect(res.body.message).toContain('50000 × 50000');
      if (what.includes('form')) expect(res.body.message).toContain('not as multipart form data');
    }
    expect(await objectKeys(blog)).toEqual([]);
    expect((await t.request('GET', '/v1/media', { key: blog.actor.key, blogId: blog.id })).body.data).toEqual([]);
  });

  it('refuses a Content-Encoded upload with 415, as the JSON routes refuse an encoding they cannot read, and stores nothing', async () => {
    const blog = await buildBlog(t);
    const png = await image('png', 40, 30);
    for (const encoding of ['x-nosuch', 'gzip', 'br']) {
      const res = await t.request('POST', '/v1/media', {
        key: blog.actor.key,
        blogId: blog.id,
        raw: png,
        headers: { 'content-type': 'image/png', 'content-encoding': encoding },
      });
      expectError(res, 415, 'unsupported_media_type');
      expect(res.body.message).toContain('Content-Encoded');
    }
    const json = await t.request('POST', '/v1/posts', {
      key: blog.actor.key,
      blogId: blog.id,
      raw: Buffer.from('{}'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'x-nosuch' },
    });
    expectError(json, 415, 'unsupported_media_type');
    expect(await objectKeys(blog)).toEqual([]);
    // Identity is no encoding at all.
    const plain = await t.request('POST', '/v1/media', {
      key: blog.actor.key,
      blogId: blog.id,
      raw: png,
      headers: { 'content-type': 'image/png', 'content-encoding': 'identity' },
    });
    expect(plain.status, plain.text).toBe(201);
  });

  it('bounds decoding by pixels × frames (24 MP by default): small bombs the audit sent are refused from their header', async () => {
    const blog = await buildBlog(t);
    const cases: [string, Buffer, string, string][] = [
      ['7000 × 7000 AVIF', await avifBomb(7000, 7000), 'image/avif', '7000 × 7000 pixels'],
      ['16383 × 3050 WebP', await webpBomb(16_383, 3050), 'image/webp', '16383 × 3050 pixels'],
      ['25 frames of 1000 × 1000', await gifBomb(25, 1000), 'image/gif', '25 frames of 1000 × 1000 pixels'],
    ];
    for (const [what, bytes, type, size] of cases) {
      expect(bytes.length, what).toBeLessThan(200_000);
      const res = await upload(blog, bytes, type);
      expectError(res, 400, 'bad_request');
      expect(res.body.message, what).toContain(size);
      expect(res.body.message, what).toContain('24 megapixels, all frames together');
    }
    expect(await objectKeys(blog)).toEqual([]);
    // Within the budget: an animation is taken, frames kept.
    const fine = await upload(blog, await gifBomb(4, 600), 'image/gif');
    expect(fine.status, fine.text).toBe(201);
    expect((await sharp(await stored(blog, fine.body.variants[0].url), { animated: true }).metadata()).pages).toBe(4);
    // Drawing the bombs takes sharp seconds on a loaded machine; refusing them takes none.
  }, 90_000);

  it('refuses a truncated animated GIF, as every truncated file', async () => {
    const blog = await buildBlog(t);
    const res = await upload(blog, await truncatedGif(), 'image/gif');
    expectError(res, 400, 'bad_request');
    expect(res.body.message).toContain('truncated');
    expect(await objectKeys(blog)).toEqual([]);
  });

  it('refuses more than 10 MB with 413, also before authentication', async () => {
    const blog = await buildBlog(t);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
    expectError(await upload(blog, big, 'image/png'), 413, 'payload_too_large');
    expectError(await t.request('POST', '/v1/media', { key: null, raw: big, headers: { 'content-type': 'image/png' } }), 401, 'unauthorized');
  });

  it('needs media:write, and a blog of the caller', async () => {
    const blog = await buildBlog(t);
    const bytes = await image('png', 64, 64);
    const readOnly = await createKey(blog.actor, blog.id, { scopes: ['posts:write', 'media:read'] });
    expectError(await upload(blog, bytes, 'image/png', readOnly.key), 403, 'forbidden');
    expect((await t.request('GET', '/v1/media', { key: readOnly.key, blogId: blog.id })).status).toBe(200);
    const stranger = await buildAccount(t);
    expectError(
      await t.request('POST', '/v1/media', { key: stranger.key, blogId: blog.id, raw: bytes, headers: { 'content-type': 'image/png' } }),
      404,
      'not_found',
    );
    expect(await objectKeys(blog)).toEqual([]);
  });
});

describe('media in posts', () => {
  it('draws a media image as <picture> with srcset, sizes and its size; og_image by id uses the 1200 × 630 crop', async () => {
    const blog = await buildBlog(t);
    const media = (await upload(blog, await image('jpeg', 3000, 2000), 'image/jpeg')).body;
    await buildPost(blog, {
      title: 'Pictures',
      slug: 'pictures',
      status: 'published',
      content: `Intro.\n\n![First](${media.url})\n\n![Second](${media.url})`,
      meta: { og_image: media.id },
    });
    const post = await t.request('GET', postPath('pictures'), { key: blog.actor.key, blogId: blog.id });
    expect(post.body.og_image_url).toBe(media.url);
    const page = (await visitHost(t.baseUrl, `${blog.slug}.localhost:3000`, '/pictures')).text;
    const pictures = page.match(/<picture>[\s\S]*?<\/picture>/g) ?? [];
    expect(pictures).toHaveLength(2);
    // The page names the blog's own images root-relative (they hold on every host of the blog).
    const origin = new URL(media.url).origin;
    const stem = media.url.replace(/\.jpg$/, '').slice(origin.length);
    expect(stem).toMatch(/^\/media\//);
    for (const picture of pictures) {
      expect(picture).toContain(`<source type="image/avif" srcset="${stem}-480.avif 480w, ${stem}-960.avif 960w, ${stem}-1600.avif 1600w"`);
      expect(picture).toContain(`<source type="image/webp" srcset="${stem}-480.webp 480w, ${stem}-960.webp 960w, ${stem}-1600.webp 1600w"`);
      expect(picture).toContain(`src="${stem}-1600.jpg" srcset="${stem}-480.jpg 480w, ${stem}-960.jpg 960w, ${stem}-1600.jpg 1600w" sizes="`);
      expect(picture).toContain('width="3000" height="2000"');
    }
    // The first image loads at once, the others lazily.
    expect(pictures[0]).not.toContain('loading="lazy"');
    expect(pictures[1]).toContain('loading="lazy"');
    expect(page).toContain(`<meta property="og:image" content="${origin}${stem}-og.jpg">`);
    expect(page).toContain('<meta property="og:image:width" content="1200">');
  });

  it('refuses an og_image naming media the blog does not have', async () => {
    const blog = await buildBlog(t);
    const other = await buildBlog(t);
    const foreign = (await upload(other, await image('png', 64, 64), 'image/png')).body;
    const res = await blog.actor.request('POST', '/v1/posts', { blogId: blog.id, body: { title: 'x', content: 'y', meta: { og_image: foreign.id } } });
    expectFieldError(res, 'meta.og_image');
  });

  it('refuses to delete an image a published post uses; deletes it with its objects once the post is a draft', async () => {
    const blog = await buildBlog(t);
    const media = (await upload(blog, await image('webp', 1000, 800), 'image/webp')).body;
    await buildPost(blog, { title: 'Uses it', slug: 'uses-it', status: 'published', content: `![x](${media.url})` });
    await buildPost(blog, { title: 'Draft too', slug: 'draft-too', content: `![x](${media.url})` });
    const refused = await blog.actor.request('DELETE', `/v1/media/${media.id}`, { blogId: blog.id });
    expectError(refused, 409, 'conflict');
    expect(refused.body.message).toContain('uses-it');
    expect((await objectKeys(blog)).length).toBeGreaterThan(0);

    expect((await blog.actor.request('POST', postPath('uses-it', '/unpublish'), { blogId: blog.id })).status).toBe(200);
    expect((await blog.actor.request('DELETE', `/v1/media/${media.id}`, { blogId: blog.id })).status).toBe(200);
    expect(await objectKeys(blog)).toEqual([]);
    expectError(await blog.actor.request('GET', `/v1/media/${media.id}`, { blogId: blog.id }), 404, 'not_found');
  });

  it('keeps uploads through a full site rebuild (they are not rendered objects)', async () => {
    const blog = await buildBlog(t);
    await upload(blog, await image('png', 100, 100), 'image/png');
    const before = await objectKeys(blog);
    await buildPost(blog, { status: 'published' });
    const row = (await t.folio.repos.blogs.findOwned(blog.actor.accountId, blog.id))!;
    await t.folio.publisher.rebuild(row);
    expect(await objectKeys(blog)).toEqual(before);
  });
});

describe('GET /v1/media', () => {
  it('lists the blog’s images newest first, paginated', async () => {
    const blog = await buildBlog(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await upload(blog, await image('png', 40 + i, 40), 'image/png')).body.id);
      t.clock.advance(1000);
    }
    const page1 = await blog.actor.request('GET', '/v1/media?per_page=2', { blogId: blog.id });
    expect(page1.body.data.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    const page2 = await blog.actor.request('GET', '/v1/media?per_page=2&page=2', { blogId: blog.id });
    expect(page2.body.data.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    expectFieldError(await blog.actor.request('GET', '/v1/media?per_page=0', { blogId: blog.id }), 'per_page');
  });
});
