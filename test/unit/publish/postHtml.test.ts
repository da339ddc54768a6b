import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/content/markdown.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderPostPage, tocOf } from '../../../src/publish/render/renderPostPage.js';
import { enhancePostHtml, headingId, MAX_HEADING_IDS } from '../../../src/publish/render/postHtml.js';
import { buildBlog, buildPost, defaultTheme } from './siteFixtures.js';

describe('reader affordances on a post’s HTML (issue 11, item 5)', () => {
  it('gives every heading an id from its text, Korean included, unique on the page', () => {
    const { html, headings } = enhancePostHtml(renderMarkdown('## 설치하기\n\ntext\n\n### Step *one* & two\n\n## 설치하기\n\n## Main\n\n#### Deep'));
    expect(headings).toEqual([
      { level: 2, id: '설치하기', text: '설치하기' },
      { level: 3, id: 'step-one-two', text: 'Step one & two' },
      { level: 2, id: '설치하기-2', text: '설치하기' },
      // The layout's skip link targets #main: a heading never takes it.
      { level: 2, id: 'main-2', text: 'Main' },
    ]);
    expect(html).toContain('<h2 id="설치하기">');
    expect(html).toContain('<h4 id="deep">');
  });

  it('keeps an id the author gave, and never reuses an id present in the content', () => {
    const { headings } = enhancePostHtml('<h2 id="mine">A</h2><p id="intro">x</p><h2>Intro</h2>');
    expect(headings.map((h) => h.id)).toEqual(['mine', 'intro-2']);
  });

  it('makes code blocks focusable and loads only the first image at once', () => {
    const { html } = enhancePostHtml(
      renderMarkdown('```js\nconst a = 1;\n```\n\n![one](https://example.com/1.png)\n\n![two](https://example.com/2.png)\n\n    indented code'),
    );
    expect(html.match(/<pre tabindex="0"/g)).toHaveLength(2);
    const images = html.match(/<img[^>]*>/g)!;
    expect(images[0]).not.toContain('loading=');
    expect(images[1]).toContain('loading="lazy"');
  });

  it('makes ids of letters and digits only, and gives ids to the first headings only', () => {
    expect(headingId('"><script>')).toBe('script');
    expect(headingId('!!!')).toBe('section');
    // A megabyte of headings: ids (and contents entries) for the first MAX_HEADING_IDS only, so a
    // post page renders in milliseconds on the event loop; the rest stay as they were.
    const { html, headings } = enhancePostHtml('<h2>x</h2>'.repeat(100_000) + '<h4>last</h4>');
    expect(headings).toHaveLength(MAX_HEADING_IDS);
    expect(headings.map((h) => h.id).slice(0, 3)).toEqual(['x', 'x-2', 'x-3']);
    expect(headings[MAX_HEADING_IDS - 1]!.id).toBe(`x-${MAX_HEADING_IDS}`);
    expect(html.match(/<h2 id=/g)).toHaveLength(MAX_HEADING_IDS);
    expect(html.match(/<h2>x<\/h2>/g)).toHaveLength(100_000 - MAX_HEADING_IDS);
    expect(html.endsWith('<h4>last</h4>')).toBe(true);
    // h4 to h6 count too, though they are not in the contents list.
    expect(enhancePostHtml('<h4>d</h4>'.repeat(MAX_HEADING_IDS) + '<h2>late</h2>').headings).toEqual([]);
  });
});

describe('the contents list on a post page', () => {
  const theme = defaultTheme();
  const page = (contentMd: string, title = 'Guide') => {
    const post = buildPost({ id: 'post_toc', slug: 'guide', title, contentMd });
    const ctx = createRenderContext({ theme, blog: buildBlog(), posts: [post] });
    return String(renderPostPage(ctx, post).body);
  };

  it('lists the h2 and h3 headings, linked to their ids, once a post has three, h3s nested under their h2', () => {
    const html = page('## Install\n\ntext\n\n### On Debian\n\ntext\n\n## Configure\n\n#### Deep\n\ntext');
    const toc = /<nav class="toc"[\s\S]*?<\/nav>/.exec(html)?.[0];
    expect(toc).toBeDefined();
    expect(toc).toContain('<summary><h2 id="toc-title" class="toc-title">Contents</h2></summary>');
    // One ordered list per level: screen readers hear two sections, the first with one entry.
    const flat = toc!.replace(/\s+</g, '<');
    expect(flat).toContain(
      '<ol><li><a href="#install">Install</a><ol><li><a href="#on-debian">On Debian</a></li></ol></li><li><a href="#configure">Configure</a></li></ol>',
    );
    for (const id of ['install', 'on-debian', 'configure']) expect(html).toContain(` id="${id}"`);
  });

  it('nests by section: an h3 before the first h2 stands on the top level', () => {
    expect(
      tocOf([
        { level: 3, id: 'intro', text: 'Intro' },
        { level: 2, id: 'a', text: 'A' },
        { level: 3, id: 'a1', text: 'A1' },
        { level: 3, id: 'a2', text: 'A2' },
        { level: 2, id: 'b', text: 'B' },
      ]),
    ).toEqual([
      { text: 'Intro', href: '#intro', children: [] },
      {
        text: 'A',
        href: '#a',
        children: [
          { text: 'A1', href: '#a1', children: [] },
          { text: 'A2', href: '#a2', children: [] },
        ],
      },
      { text: 'B', href: '#b', children: [] },
    ]);
  });

  it('leaves it out for shorter posts, and labels it in Korean on Korean pages', () => {
    expect(page('## One\n\n## Two\n\n#### Three')).not.toContain('class="toc"');
    const korean = page('## 설치\n\n한국어로 쓴 글입니다.\n\n## 설정\n\n설정하는 방법입니다.\n\n## 배포\n\n배포하는 방법입니다.', '한국어 안내서');
    expect(korean).toContain('<html lang="ko"');
    expect(korean).toContain('class="toc-title">목차</h2></summary>');
    expect(korean).toContain('<a href="#%EC%84%A4%EC%B9%98">설치</a>');
  });
});

describe('the "Updated" date on a post page', () => {
  const theme = defaultTheme();
  const page = (dates: { publishedAt: string; createdAt: string; updatedAt: string }) => {
    const post = buildPost({ id: 'post_dates', slug: 'dated', title: 'Dated', contentMd: 'Text.', ...dates });
    const ctx = createRenderContext({ theme, blog: buildBlog(), posts: [post] });
    return String(renderPostPage(ctx, post).body);
  };

  it('is shown when the post changed on a later day than its publication and creation', () => {
    const html = page({ createdAt: '2026-02-01T10:00:00.000Z', publishedAt: '2026-02-03T14:00:00.000Z', updatedAt: '2026-02-05T16:20:00.000Z' });
    expect(html).toMatch(/Updated <time datetime="2026-02-05T16:20:00.000Z">/);
  });

  it('is not shown for a post moved over today with its old date and never edited since', () => {
    // folio push of a 2019 post: created and last changed today, published in 2019.
    const html = page({ createdAt: '2026-11-26T21:00:00.000Z', publishedAt: '2019-05-01T00:00:00.000Z', updatedAt: '2026-11-26T21:00:05.000Z' });
    expect(html).toContain('datetime="2019-05-01T00:00:00.000Z"');
    expect(html).not.toContain('Updated');
  });

  it('is shown for such a post once it is edited on a later day', () => {
    const html = page({ createdAt: '2026-11-26T21:00:00.000Z', publishedAt: '2019-05-01T00:00:00.000Z', updatedAt: '2026-11-28T08:00:00.000Z' });
    expect(html).toMatch(/Updated <time datetime="2026-11-28T08:00:00.000Z">/);
  });
});
