import { describe, expect, it } from 'vitest';
import { postPath, safeHttpUrl, tagKey, tagPath, tagSegment } from '../../../src/publish/render/renderPaths.js';

describe('tagSegment', () => {
  it.each([
    ['JavaScript', 'javascript'],
    ['Static Sites', 'static-sites'],
    ['  spaced   out  ', 'spaced-out'],
    ['정적 사이트', '정적-사이트'],
    ['블로그', '블로그'],
    ['a/b?c#d%e\\f.g', 'abcdefg'],
    ['C++', 'cplusplus'],
    ['C#', 'csharp'],
    ['#hashtag', 'hashtag'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'fullwidth'],
    ['node.js', 'nodejs'],
    ['snake_case-tag', 'snake_case-tag'],
    ['a+b', 'ab'],
    ['F#', 'fsharp'],
  ])('%j → %j', (tag, segment) => {
    expect(tagSegment(tag)).toBe(segment);
  });

  it('gives a tag with nothing URL-safe a stable hashed segment', () => {
    expect(tagSegment('...')).toMatch(/^tag-[0-9a-f]{8}$/);
    expect(tagSegment('...')).toBe(tagSegment('...'));
    expect(tagSegment('...')).not.toBe(tagSegment('???'));
  });

  it('keeps the raw Unicode form in keys and percent-encodes it in links', () => {
    expect(tagKey('notes', '정적 사이트')).toBe('notes/tags/정적-사이트/index.html');
    expect(tagPath('정적 사이트')).toBe(`/tags/${encodeURIComponent('정적-사이트')}`);
    expect(postPath('서버')).toBe('/%EC%84%9C%EB%B2%84');
  });
});

describe('safeHttpUrl', () => {
  it.each([
    ['https://cdn.example.com/a.css', 'https://cdn.example.com/a.css'],
    ['http://x.example/a b', 'http://x.example/a%20b'],
    ['javascript:alert(1)', null],
    ['data:text/css,body{}', null],
    ['/relative.css', null],
    ['', null],
    [null, null],
  ])('%j → %j', (input, output) => {
    expect(safeHttpUrl(input)).toBe(output);
  });
});
