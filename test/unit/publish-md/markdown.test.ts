import { describe, expect, it } from 'vitest';
import { descriptionFromHtml, htmlToPlainText, htmlToSearchText, renderMarkdown } from '../../../src/content/markdown.js';

const describePost = (markdown: string): string => descriptionFromHtml(renderMarkdown(markdown));

describe('renderMarkdown', () => {
  it('renders Markdown and highlights fenced code on the server', () => {
    const html = renderMarkdown('# Title\n\n```js\nconst a = 1;\n```');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
  });

  it.each([
    ['<script>alert(1)</script>', /<script/i],
    ['<img src=x onerror="alert(1)">', /onerror/i],
    ['<a href="javascript:alert(1)">x</a>', /javascript:/i],
    // markdown-it refuses the link; the text may stay, but never as an href.
    ['[x](javascript:alert(1))', /href=["']?\s*javascript:/i],
    ['<iframe src="https://evil.example"></iframe>', /<iframe/i],
    ['<form action="/x"><input></form>', /<form|<input/i],
    ['<style>body{display:none}</style>', /<style/i],
    ['<div onclick="alert(1)">x</div>', /onclick/i],
    ['<svg><script>alert(1)</script></svg>', /<script|<svg/i],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', /javascript:/i],
  ])('removes hostile HTML %j', (input, forbidden) => {
    expect(renderMarkdown(input)).not.toMatch(forbidden);
  });

  it('keeps column alignment as classes, and no style attribute or other class on cells', () => {
    const html = renderMarkdown('| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |').replace(/\n/g, '');
    expect(html).toContain('<th class="align-left">a</th><th class="align-center">b</th><th class="align-right">c</th><th>d</th>');
    expect(html).toContain('<td class="align-left">1</td><td class="align-center">2</td><td class="align-right">3</td><td>4</td>');
    expect(html).not.toContain('style=');
    const raw = renderMarkdown('<table><tr><td class="evil align-right" style="color:red" align="center">x</td></tr></table>');
    expect(raw).toContain('<td class="align-right" align="center">x</td>');
  });

  it('keeps safe raw HTML and marks external links', () => {
    const html = renderMarkdown('<details><summary>More</summary>Text</details>\n\n[site](https://example.com)');
    expect(html).toContain('<details><summary>More</summary>');
    expect(html).toContain('rel="noopener nofollow ugc"');
  });
});

describe('descriptionFromHtml', () => {
  it('uses the first sentences of the plain text, at most 160 characters', () => {
    const text = describePost('# Heading\n\nFirst sentence here. Second one follows. ' + 'More words. '.repeat(30));
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text.startsWith('First sentence here. Second one follows.')).toBe(true);
    expect(text.endsWith('.')).toBe(true);
  });

  it('cuts a long sentence at a word boundary', () => {
    const text = describePost('word '.repeat(100));
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text).toMatch(/word…$/);
  });

  it('falls back to the headings when a post has nothing else', () => {
    expect(describePost('# Only a title')).toBe('Only a title');
  });

  it('leaves code blocks and markup out', () => {
    expect(describePost('Intro **bold**.\n\n```\nsecret code\n```\n\n    indented code\n\nEnd.')).toBe('Intro bold. End.');
  });
});

describe('htmlToPlainText (search index text from content_html)', () => {
  it.each([
    ['Intro **bold**.\n\n```\nsecret code\n```\n\nEnd.', 'Intro bold. End.'],
    [
      '# 제목\n\n서버를 배포했다. `npm start` 로 시작한다.\n\n- 하나\n- 둘\n\n> 인용 & <태그>',
      '제목 서버를 배포했다. npm start 로 시작한다. 하나 둘 인용 & <태그>',
    ],
    [
      'A [link](https://example.com/a?b=1&c=2) and ![img](/x.png "t") in a line.\nNext line with &copy; and &#x41;.',
      'A link and in a line. Next line with © and A.',
    ],
    ['| a | b |\n|---|---|\n| cell one | cell two |\n\n~~~js\nconst hidden = 1;\n~~~\nafter', 'a b cell one cell two after'],
  ])('gives the readable text of %j', (source, text) => {
    expect(htmlToPlainText(renderMarkdown(source))).toBe(text);
  });

  it('gives the code blocks apart from the prose, highlighted markup and entities undone (htmlToSearchText)', () => {
    const html = renderMarkdown('Run it:\n\n```sh\ncurl -fsS "https://x.test/a?b=1&c=2"\n```\n\nThen:\n\n```js\nconst a = b < c;\n```\n\nDone `inline`.');
    expect(htmlToSearchText(html)).toEqual({ body: 'Run it: Then: Done inline.', code: 'curl -fsS "https://x.test/a?b=1&c=2" const a = b < c;' });
    expect(htmlToSearchText(renderMarkdown('No code here.'))).toEqual({ body: 'No code here.', code: '' });
  });

  it('leaves headings out when asked, for descriptions', () => {
    expect(htmlToPlainText(renderMarkdown('# Title\n\nBody text.\n\n## Part\n\nMore.'), { headings: false })).toBe('Body text. More.');
  });
});
