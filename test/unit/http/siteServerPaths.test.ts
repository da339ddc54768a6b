import { describe, expect, it } from 'vitest';
import { keyForPath } from '../../../src/http/siteServer.js';
import { normalizeHost } from '../../../src/http/siteHost.js';

describe('keyForPath', () => {
  it.each([
    ['/', 'index.html'],
    ['/hello-world', 'hello-world/index.html'],
    ['/hello-world/', 'hello-world/index.html'],
    ['/rss.xml', 'rss.xml'],
    ['/page/2', 'page/2/index.html'],
    ['/assets/site.abc123.css', 'assets/site.abc123.css'],
    ['/%EC%84%9C%EB%B2%84', '서버/index.html'],
  ])('maps %s to %s', (path, key) => {
    expect(keyForPath(path)).toBe(key);
  });

  it.each(['/../other/index.html', '/a/../../x', '/%2e%2e/x', '/..%2fx', '/a\\b', '/_search/manifest.json', '/.meta/x', '/%00', '/%E0%A4%A'])(
    'refuses %s',
    (path) => {
      expect(keyForPath(path)).toBeNull();
    },
  );
});

describe('normalizeHost', () => {
  it('drops the port and trailing dots and lower-cases', () => {
    expect(normalizeHost('My-Blog.Localhost:3000')).toBe('my-blog.localhost');
    expect(normalizeHost('blog.example.com.')).toBe('blog.example.com');
  });
});
