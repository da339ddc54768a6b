/**
 * Regression (issue 11, item 6): the favicon's data: URL held raw spaces, which the Nu HTML
 * Checker reports as an error on every page ("Illegal character in scheme data"). Every URL
 * attribute of every rendered page must be a valid URL: no raw whitespace.
 */
import { describe, expect, it } from 'vitest';
import { renderSite } from '../../src/publish/pages/fullRender.js';
import { scanHtml } from '../unit/publish/htmlScan.js';
import { buildBlog, defaultTheme, fixturePosts } from '../unit/publish/siteFixtures.js';

const pages = renderSite({ theme: defaultTheme(), blog: buildBlog(), posts: fixturePosts, redirects: [] }).filter((o) => o.contentType.startsWith('text/html'));

describe('URL attributes of rendered pages', () => {
  it('renders pages to check, each with a favicon', () => {
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages)
      expect(
        scanHtml(String(page.body)).tags.some((t) => t.name === 'link' && t.attrs.get('rel') === 'icon'),
        page.key,
      ).toBe(true);
  });

  it.each(pages.map((p) => [p.key, p] as const))('%s: href, src and content URLs hold no raw whitespace', (_key, page) => {
    for (const tag of scanHtml(String(page.body)).tags) {
      for (const name of ['href', 'src']) {
        const value = tag.attrs.get(name);
        if (value !== undefined) expect(value, `<${tag.name} ${name}>`).not.toMatch(/\s/);
      }
    }
  });
});
