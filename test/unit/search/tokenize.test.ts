import { describe, expect, it } from 'vitest';
import { hangulStem, isBareEnding } from '../../../src/search/koreanStems.js';
import { MAX_TOKEN_LENGTH, queryTerms, termOf, tokenize } from '../../../src/search/tokenize.js';

describe('tokenize', () => {
  it('lower-cases English and splits on anything that is not a letter or digit', () => {
    expect(tokenize("Hello, World! It's a server-side cache_layer.")).toEqual(['hello', 'world', 'it', 's', 'a', 'server', 'side', 'cache', 'layer']);
  });

  it('keeps words whole: no stemming and no stop words', () => {
    expect(tokenize('The servers were running and the caches')).toEqual(['the', 'servers', 'were', 'running', 'and', 'the', 'caches']);
  });

  it('applies NFKC, so full-width letters, ligatures and decomposed Hangul match their plain forms', () => {
    expect(tokenize('ＳＱＬｉｔｅ ﬁle')).toEqual(['sqlite', 'file']);
    const decomposed = '블로그'.normalize('NFD');
    expect(decomposed).not.toBe('블로그');
    expect(tokenize(decomposed)).toEqual(['블로그']);
  });

  it('keeps accented and other-script letters, with their combining marks', () => {
    expect(tokenize('Café naïve Ελληνικά русский हिन्दी')).toEqual(['café', 'naïve', 'ελληνικά', 'русский', 'हिन्दी']);
  });

  it('keeps numbers, alone and inside words', () => {
    expect(tokenize('HTTP/2 on port 8080, ipv6 and 3.14')).toEqual(['http', '2', 'on', 'port', '8080', 'ipv6', 'and', '3', '14']);
  });

  it('drops emoji and punctuation entirely', () => {
    expect(tokenize('🎉 launch 🚀!!! — “quoted” … (done)')).toEqual(['launch', 'quoted', 'done']);
    expect(tokenize('👍🏽❤️‍🔥')).toEqual([]);
  });

  it('turns lunr query syntax into plain words, so nothing reaches lunr as an operator', () => {
    expect(tokenize('title:foo')).toEqual(['title', 'foo']);
    expect(tokenize('c++')).toEqual(['c']);
    expect(tokenize('node.js')).toEqual(['node', 'js']);
    expect(tokenize('fuzzy~2 boost^10')).toEqual(['fuzzy', '2', 'boost', '10']);
    expect(tokenize('*')).toEqual([]);
    expect(tokenize('sql*')).toEqual(['sql']);
    expect(tokenize('+')).toEqual([]);
    expect(tokenize('-')).toEqual([]);
    expect(tokenize('+required -prohibited')).toEqual(['required', 'prohibited']);
  });

  it('splits Latin from Hangul and drops a particle glued to a foreign word', () => {
    expect(tokenize('SQLite에서 Koa로 API를 Node.js로는')).toEqual(['sqlite', 'koa', 'api', 'node', 'js']);
    expect(tokenize('Docker가 k8s와 함께')).toEqual(['docker', 'k8s', '함께']);
  });

  it('keeps a Hangul word glued to a number when it is a word, not a particle', () => {
    expect(tokenize('3개의 서버, 2024년')).toEqual(['3', '개의', '서버', '2024', '년']);
  });

  it('keeps Korean words as written; termOf then strips their particles', () => {
    expect(tokenize('블로그를 서버에서 비가 왔다')).toEqual(['블로그를', '서버에서', '비가', '왔다']);
    expect(tokenize('블로그를 서버에서 비가 왔다').map(termOf)).toEqual(['블로그', '서버', '비', '왔다']);
    expect(termOf('server')).toBe('server');
  });

  it(`drops tokens longer than ${MAX_TOKEN_LENGTH} characters`, () => {
    expect(tokenize(`short ${'x'.repeat(MAX_TOKEN_LENGTH + 1)} ${'y'.repeat(MAX_TOKEN_LENGTH)}`)).toEqual(['short', 'y'.repeat(MAX_TOKEN_LENGTH)]);
  });

  it('gives the query terms once each, in order, reduced like documents', () => {
    expect(queryTerms('Server server SERVER cache')).toEqual(['server', 'cache']);
    expect(queryTerms('서버를 서버 서버에서 비빔밥')).toEqual(['서버', '비빔밥']);
    expect(queryTerms('   ')).toEqual([]);
  });
});

describe('hangulStem', () => {
  const cases: [string, string][] = [
    // subject, object, topic: the form depends on a final consonant
    ['블로그가', '블로그'],
    ['책이', '책'],
    ['블로그를', '블로그'],
    ['책을', '책'],
    ['블로그는', '블로그'],
    ['책은', '책'],
    // location, direction, possession, companions
    ['서버에', '서버'],
    ['서버에서', '서버'],
    ['친구에게', '친구'],
    ['친구한테', '친구'],
    ['서버의', '서버'],
    ['서버로', '서버'],
    ['파일로', '파일'],
    ['방법으로', '방법'],
    ['서버와', '서버'],
    ['책과', '책'],
    ['서버도', '서버'],
    ['서버만', '서버'],
    ['서버까지', '서버'],
    ['서버부터', '서버'],
    ['서버처럼', '서버'],
    ['서버보다', '서버'],
    ['서버마다', '서버'],
    ['커피나', '커피나'],
    ['책이나', '책'],
    // stacked particles give every intermediate form
    ['서버에서는', '서버'],
    ['사용자들에게는', '사용자'],
    ['블로그에서도', '블로그'],
    ['방법으로는', '방법'],
    // predicates made from nouns
    ['개발자입니다', '개발자'],
    ['요리했습니다', '요리'],
    ['요리하는', '요리'],
    ['배포됩니다', '배포'],
    ['간단한', '간단'],
    // one-syllable stems are allowed
    ['비가', '비'],
    ['비를', '비'],
    ['눈이', '눈'],
  ];
  it.each(cases)('%s → %s', (word, stem) => {
    expect(hangulStem(word)).toBe(stem);
  });

  it('leaves words alone whose last syllable only looks like a particle', () => {
    for (const word of ['가을', '마을', '나이', '아이', '오이', '사과', '효과', '평가', '국가', '비빔밥', '블로그', '권한']) {
      expect(hangulStem(word), word).toBe(word);
    }
  });

  it('never cuts into a listed noun, even under a particle', () => {
    expect(hangulStem('회의')).toBe('회의');
    expect(hangulStem('회의를')).toBe('회의');
    expect(hangulStem('속도가')).toBe('속도');
    expect(hangulStem('비만은')).toBe('비만');
    expect(hangulStem('고양이를')).toBe('고양이');
  });

  it('never yields an empty stem and leaves non-Hangul words alone', () => {
    expect(hangulStem('를')).toBe('를');
    expect(hangulStem('에서')).toBe('에서');
    expect(hangulStem('server')).toBe('server');
    expect(hangulStem('ᄏᄏ')).toBe('ᄏᄏ');
  });

  it('recognises runs that are nothing but endings', () => {
    for (const run of ['를', '에서', '에서는', '로는', '으로도', '들이', '했습니다']) expect(isBareEnding(run), run).toBe(true);
    for (const run of ['개의', '서버', '년']) expect(isBareEnding(run), run).toBe(false);
  });
});
