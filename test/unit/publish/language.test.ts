import { describe, expect, it } from 'vitest';
import { detectLanguage, detectPostLanguage } from '../../../src/domain/language.js';
import { readingMinutes } from '../../../src/domain/readingTime.js';
import { cachingPost, helloPost, koreanPost } from './siteFixtures.js';

describe('detectLanguage', () => {
  it.each([
    ['Caching static sites at the edge', 'en'],
    ['정적 사이트 생성기로 블로그 만들기', 'ko'],
    // Mixed: Korean sentences that quote English terms stay Korean…
    ['React의 useEffect와 useMemo 훅을 언제 쓰는지 정리했습니다', 'ko'],
    // …and an English sentence quoting one Korean word stays English.
    ['In Korean, the word 블로그 simply means blog, borrowed from English', 'en'],
    ['', 'en'],
    ['12345 !!!', 'en'],
  ])('%j → %s', (text, lang) => {
    expect(detectLanguage(text)).toBe(lang);
  });

  it('ignores code blocks, inline code and URLs in a post', () => {
    const code = '```ts\n' + 'const value = computeSomethingLong(input, options);\n'.repeat(30) + '```';
    expect(
      detectPostLanguage({
        title: '배포 자동화',
        contentMd: `빌드 스크립트를 정리했습니다. \`npm run build\`\n\n${code}\n\n자세한 내용은 https://example.com/docs/very/long/english/path 참고.`,
      }),
    ).toBe('ko');
    expect(detectPostLanguage(koreanPost)).toBe('ko');
    expect(detectPostLanguage(cachingPost)).toBe('en');
  });
});

describe('readingMinutes', () => {
  it('is at least one minute', () => {
    expect(readingMinutes('')).toBe(1);
    expect(readingMinutes(helloPost.contentMd)).toBe(1);
  });

  it('reads Latin text at about 230 words a minute', () => {
    expect(readingMinutes('word '.repeat(230 * 5))).toBe(5);
    expect(readingMinutes('word '.repeat(1000))).toBe(4);
  });

  it('reads Korean by characters, about 500 a minute, not by space-separated words', () => {
    // 1,500 Hangul syllables in 300 words: 3 minutes (as words it would be about 1).
    expect(readingMinutes('가나다라마 '.repeat(300))).toBe(3);
  });

  it('adds both scripts in a mixed post and skips link destinations', () => {
    const mixed = `${'한국어 '.repeat(500)} ${'word '.repeat(230)} [link](https://example.com/${'a/'.repeat(500)})`;
    expect(readingMinutes(mixed)).toBe(Math.round(1500 / 500 + 231 / 230));
  });
});
