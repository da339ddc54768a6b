/**
 * Particle-aware stems for Hangul words (see README.md in this folder).
 *
 * Korean writes particles and endings onto the word (서버를, 서버에서, 블로그가, 요리했습니다).
 * A reader searches for the word, so every Hangul token is indexed under its stem — the word
 * with a known particle or ending stripped — and every query word is reduced the same way
 * before lookup. `블로그` then finds a post that only says `블로그를`, `서버를` finds what
 * `서버` finds, and `비` finds `비가` and `비를` but never `비빔밥`: terms are matched whole,
 * never by prefix.
 *
 * A word is read as [stem][plural 들][case particle or 하다/되다/copula ending][delimiter
 * particle], every part optional, and the decomposition that strips the longest suffix wins.
 * Each ending carries the phonological condition under which Korean attaches it (을 only after
 * a final consonant, 를 only after a vowel, …): that condition alone keeps 가을, 마을, 나이,
 * 아이, 오이, 사과, 효과, 평가 and 국가 whole. Nouns that still look inflected under those rules
 * (회의, 속도, 비만, 도로, 결과, 고양이 …) are listed in KNOWN_WORDS and never cut.
 */

type Condition = 'any' | 'consonant' | 'vowel' | 'vowelOrRieul' | 'consonantNotRieul';

interface Ending {
  text: string;
  condition: Condition;
  /** Syllables the stem must keep: 한/할/함 after one syllable are nearly always nouns (권한, 제한). */
  minStem: number;
}

const HANGUL_FIRST = 0xac00;
const HANGUL_LAST = 0xd7a3;
const RIEUL_FINAL = 8;

function ending(text: string, condition: Condition = 'any', minStem = 1): Ending {
  return { text, condition, minStem };
}

/** Delimiter particles: they follow case particles (서버에서는, 서버까지도). */
// biome-ignore format: a table, packed so that related endings share a line.
const DELIMITERS: Ending[] = [
  ending('은', 'consonant'), ending('는', 'vowel'), ending('도'), ending('만'),
  ending('까지'), ending('까지는'), ending('까지도'), ending('부터'), ending('부터는'), ending('부터도'),
  ending('조차'), ending('마저'), ending('밖에'), ending('마다'), ending('만은'), ending('만도'),
  ending('이나', 'consonant'), ending('이라도', 'consonant'), ending('라도', 'vowel'),
];

/** Case particles, plus the 하다/되다/copula endings that turn a noun into a predicate. */
// biome-ignore format: a table, packed so that related endings share a line.
const CASE_ENDINGS: Ending[] = [
  ending('이', 'consonant'), ending('가', 'vowel'), ending('을', 'consonant'), ending('를', 'vowel'),
  ending('의'), ending('에'), ending('에서'), ending('에게'), ending('에게서'), ending('한테'), ending('한테서'),
  ending('께서'), ending('으로', 'consonantNotRieul'), ending('로', 'vowelOrRieul'),
  ending('으로서', 'consonantNotRieul'), ending('로서', 'vowelOrRieul'),
  ending('으로써', 'consonantNotRieul'), ending('로써', 'vowelOrRieul'),
  ending('과', 'consonant'), ending('와', 'vowel'), ending('이랑', 'consonant'),
  ending('처럼'), ending('보다'), ending('만큼'), ending('하고'),
  // copula
  ending('입니다'), ending('이다'), ending('이고'), ending('이며'), ending('이지만'),
  ending('이라는', 'consonant'), ending('라는', 'vowel'), ending('이라고', 'consonant'), ending('라고', 'vowel'),
  ending('이었다', 'consonant'), ending('였다', 'vowel'), ending('이에요', 'consonant'), ending('예요', 'vowel'),
  // 요리다, 프레임워크다: the copula shrinks to 다 after a vowel; one-syllable stems (바다,
  // 크다, 가다) are left alone.
  ending('다', 'vowel', 2),
  // 하다 (요리했습니다 → 요리)
  ending('하다'), ending('한다'), ending('합니다'), ending('했다'), ending('했습니다'), ending('하였다'),
  ending('하였습니다'), ending('하겠습니다'), ending('하는'), ending('해서'), ending('하면'), ending('하기'),
  ending('하며'), ending('하여'), ending('해야'), ending('했고'), ending('했던'), ending('하던'), ending('해요'),
  ending('했어요'), ending('하지'), ending('하게'), ending('했지만'), ending('할', 'any', 2), ending('한', 'any', 2),
  ending('함', 'any', 2),
  // 되다 (배포됩니다 → 배포)
  ending('되다'), ending('된다'), ending('됩니다'), ending('됐다'), ending('되었다'), ending('됐습니다'),
  ending('되었습니다'), ending('되는'), ending('되고'), ending('되어'), ending('돼서'), ending('되면'),
  ending('된', 'any', 2), ending('될', 'any', 2), ending('됨', 'any', 2),
];

const PLURAL: Ending[] = [ending('들')];

/**
 * Nouns whose last syllables look like an ending that the phonological conditions allow. Only
 * whole words are listed; stripping stops as soon as the remainder is one of them.
 */
// biome-ignore format: a table, packed so that related endings share a line.
const KNOWN_WORDS = new Set<string>([
  // 의
  '회의', '주의', '정의', '의의', '논의', '강의', '합의', '동의', '예의', '문의', '질의', '건의', '협의', '토의', '거의', '민주주의',
  // 도
  '정도', '온도', '속도', '태도', '제도', '지도', '인도', '보도', '각도', '강도', '습도', '밀도', '빈도', '용도', '시도',
  '기도', '포도', '한도', '농도', '정확도', '만족도', '신뢰도', '중요도', '난이도', '복잡도', '해상도', '고도', '수도', '전도', '진도',
  // 로
  '도로', '미로', '서로', '새로', '실로',
  // 과 (after a final consonant)
  '결과', '성과', '학과', '일과', '외과', '내과', '안과', '치과', '법과',
  // 이 (after a final consonant)
  '고양이', '원숭이', '호랑이', '거북이', '길이', '높이', '깊이', '넓이', '놀이', '먹이', '달팽이',
  // 가
  '휴가', '요가', '화가', '주가', '대가', '시가',
  // 만
  '비만', '불만', '천만', '백만', '만만', '자만', '교만', '하지만',
  // 하다/되다 look-alikes
  '하한', '상한', '권한', '기한', '제한', '무한',
]);

const DELIMITER_INDEX = indexByLastChar(DELIMITERS);
const CASE_INDEX = indexByLastChar(CASE_ENDINGS);
const PLURAL_INDEX = indexByLastChar(PLURAL);
const BARE_ENDINGS = new Set([...DELIMITERS, ...CASE_ENDINGS, ...PLURAL].map((e) => e.text));

function indexByLastChar(endings: readonly Ending[]): Map<string, Ending[]> {
  const byLast = new Map<string, Ending[]>();
  for (const e of endings) {
    const last = e.text.slice(-1);
    const list = byLast.get(last) ?? [];
    list.push(e);
    byLast.set(last, list);
  }
  // Longest first, so the first match that fits is the longest.
  for (const list of byLast.values()) list.sort((a, b) => b.text.length - a.text.length);
  return byLast;
}

function isHangulSyllable(code: number): boolean {
  return code >= HANGUL_FIRST && code <= HANGUL_LAST;
}

/** True when every code unit is a precomposed Hangul syllable (jamo-only tokens are left alone). */
export function isHangulWord(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i++) if (!isHangulSyllable(word.charCodeAt(i))) return false;
  return true;
}

function fits(stem: string, e: Ending): boolean {
  if (stem.length < e.minStem) return false;
  const final = (stem.charCodeAt(stem.length - 1) - HANGUL_FIRST) % 28;
  switch (e.condition) {
    case 'any':
      return true;
    case 'consonant':
      return final !== 0;
    case 'vowel':
      return final === 0;
    case 'vowelOrRieul':
      return final === 0 || final === RIEUL_FINAL;
    case 'consonantNotRieul':
      return final !== 0 && final !== RIEUL_FINAL;
  }
}

/** Stems reachable from `word` by removing one ending of the table (longest first). */
function strip(word: string, table: Map<string, Ending[]>): string[] {
  if (KNOWN_WORDS.has(word)) return [];
  const candidates = table.get(word.slice(-1));
  if (!candidates) return [];
  const stems: string[] = [];
  for (const e of candidates) {
    if (word.length <= e.text.length || !word.endsWith(e.text)) continue;
    const stem = word.slice(0, word.length - e.text.length);
    if (fits(stem, e)) stems.push(stem);
  }
  return stems;
}

/** Length of the longest listed noun the word starts with: no stem may be shorter. */
function protectedLength(word: string): number {
  for (let n = word.length; n >= 2; n--) if (KNOWN_WORDS.has(word.slice(0, n))) return n;
  return 0;
}

/** The shortest stem over every reading [stem][들][case or predicate ending][delimiter]. */
function shortestStem(word: string): string {
  const minimum = protectedLength(word);
  let best = word;
  const consider = (stem: string): void => {
    if (stem.length >= minimum && stem.length < best.length) best = stem;
  };
  for (const outer of [word, ...strip(word, DELIMITER_INDEX)]) {
    for (const inner of [outer, ...strip(outer, CASE_INDEX)]) {
      consider(inner);
      for (const plural of strip(inner, PLURAL_INDEX)) consider(plural);
    }
  }
  return best;
}

const memo = new Map<string, string>();
const MEMO_LIMIT = 100_000;

/**
 * The word without its particles and endings: `사용자들에게는` → `사용자`, `블로그를` → `블로그`,
 * `비가` → `비`; a word with none (`블로그`, `비빔밥`, `회의`) and any non-Hangul word is
 * returned as it is.
 */
export function hangulStem(word: string): string {
  // Most tokens are not Hangul; answer them before touching the memo.
  if (!isHangulSyllable(word.charCodeAt(0))) return word;
  const cached = memo.get(word);
  if (cached !== undefined) return cached;
  const stem = isHangulWord(word) ? shortestStem(word) : word;
  // The memo only saves time on repeated words; clearing it when full keeps it bounded.
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, stem);
  return stem;
}

/**
 * True when a Hangul run is nothing but endings, such as the `에서` of `SQLite에서` or the
 * `로는` of `Koa로는`: a particle glued to a foreign word carries no meaning of its own.
 */
export function isBareEnding(run: string): boolean {
  if (BARE_ENDINGS.has(run)) return true;
  // Combinations (에서는, 으로도, 들에게): an ending whose remainder is itself bare.
  for (const table of [DELIMITERS, CASE_ENDINGS]) {
    for (const e of table) {
      if (run.length > e.text.length && run.endsWith(e.text) && isBareEnding(run.slice(0, run.length - e.text.length))) return true;
    }
  }
  return false;
}
