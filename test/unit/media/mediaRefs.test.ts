import { describe, expect, it } from 'vitest';
import { absoluteMediaUrls, fromMediaRefs, mediaRefsAsPaths, toMediaRefs } from '../../../src/media/mediaRefs.js';

const NAME = '0123456789abcdef0123-800x600.jpg';

describe('media references (the blog’s own image URLs, stored without the host)', () => {
  it('rewrites only URLs of the given hosts, whatever the scheme or the case of the host', () => {
    const text = [
      `![a](https://blog.folio.test/media/${NAME})`,
      `![b](http://BLOG.Folio.test/media/${NAME})`,
      `![c](https://other.folio.test/media/${NAME})`,
      `![d](https://blog.folio.test/about/${NAME})`,
      `![e](https://blog.example.com/media/${NAME})`,
      `![f](/media/${NAME})`,
    ].join('\n');
    expect(toMediaRefs(text, ['https://blog.folio.test', 'https://blog.example.com'])).toBe(
      [
        `![a](folio-media:${NAME})`,
        `![b](folio-media:${NAME})`,
        `![c](https://other.folio.test/media/${NAME})`,
        `![d](https://blog.folio.test/about/${NAME})`,
        `![e](folio-media:${NAME})`,
        `![f](/media/${NAME})`,
      ].join('\n'),
    );
  });

  it('does not treat a host as a pattern: a dot matches only a dot, a port must match', () => {
    expect(toMediaRefs(`https://blogxfolio.test/media/${NAME}`, ['https://blog.folio.test'])).toBe(`https://blogxfolio.test/media/${NAME}`);
    expect(toMediaRefs(`http://b.localhost:3000/media/${NAME} http://b.localhost:4000/media/${NAME}`, ['http://b.localhost:3000'])).toBe(
      `folio-media:${NAME} http://b.localhost:4000/media/${NAME}`,
    );
  });

  it('answers references on the current origin, and renders them root-relative', () => {
    expect(fromMediaRefs(`![a](folio-media:${NAME})`, 'https://new.example')).toBe(`![a](https://new.example/media/${NAME})`);
    expect(mediaRefsAsPaths(`![a](folio-media:${NAME})`)).toBe(`![a](/media/${NAME})`);
  });

  it('makes root-relative media URLs absolute in src, href and every srcset entry, and nowhere else', () => {
    const html = `<p>/media/${NAME} stays text</p><img src="/media/${NAME}" srcset="/media/a-480.jpg 480w, /media/a-960.jpg 960w"><a href="/media/${NAME}">x</a><a href="/about">y</a><img src="https://x.test/media/${NAME}">`;
    expect(absoluteMediaUrls(html, 'https://b.test')).toBe(
      `<p>/media/${NAME} stays text</p><img src="https://b.test/media/${NAME}" srcset="https://b.test/media/a-480.jpg 480w, https://b.test/media/a-960.jpg 960w"><a href="https://b.test/media/${NAME}">x</a><a href="/about">y</a><img src="https://x.test/media/${NAME}">`,
    );
  });
});
