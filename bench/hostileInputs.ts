/**
 * Pathological Markdown of the hardening issue (item 1), shared by `npm run bench` (hostile
 * section, full size) and the hostile-input test suite: long runs of every Markdown punctuation
 * character, deep nesting of quotes and lists, wide tables, 250,000 emphasis markers, long lines
 * without spaces, mixed Hangul. Every input is at most `bytes` of UTF-8 and fits the API's 2 MB
 * JSON body once escaped, so the API accepts its size.
 */

export interface HostileInput {
  name: string;
  content: string;
}

export const MIB = 1024 * 1024;
/** Room for the rest of the JSON body (title, status, braces) under the 2 MB request limit. */
const BODY_SLACK = 4096;

/** ASCII punctuation: every character Markdown may give a meaning to. */
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** `unit` repeated up to `bytes` of UTF-8 and as long as its JSON still fits a 2 MB body. */
export function fill(unit: string, bytes: number): string {
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const unitJson = JSON.stringify(unit).length - 2;
  const count = Math.floor(Math.min(bytes / unitBytes, (2 * MIB - BODY_SLACK) / unitJson));
  return unit.repeat(count);
}

function lines(count: number, line: (i: number) => string, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; i < count; i++) {
    const next = line(i);
    size += Buffer.byteLength(next, 'utf8') + 1;
    if (size > bytes) break;
    out.push(next);
  }
  return out.join('\n');
}

function wideTable(columns: number, bytes: number): string {
  const head = `|${Array.from({ length: columns }, (_, i) => `c${i}`).join('|')}|\n|${'-|'.repeat(columns)}\n`;
  const row = `|${'x|'.repeat(columns)}\n`;
  return head + row.repeat(Math.floor((bytes - head.length) / row.length));
}

/** Every input of the issue at the given size (1 MiB is the API's limit). */
export function hostileInputs(bytes = MIB): HostileInput[] {
  const runs = [...PUNCTUATION].map((char) => ({ name: `run of ${char}`, content: fill(char, bytes) }));
  return [
    ...runs,
    { name: 'run of ](', content: fill('](', bytes) },
    { name: 'run of ![', content: fill('![', bytes) },
    { name: 'run of [](', content: fill('[](', bytes) },
    { name: 'run of <a', content: fill('<a', bytes) },
    { name: 'run of &amp;', content: fill('&amp;', bytes) },
    { name: 'quotes nested on one line', content: fill('> ', bytes) },
    { name: 'quotes nested line by line', content: lines(100_000, (i) => `${'> '.repeat(Math.min(i, 2000))}x`, bytes) },
    { name: 'lists nested line by line', content: lines(100_000, (i) => `${' '.repeat(Math.min(i * 2, 4000))}- x`, bytes) },
    { name: 'list markers on one line', content: fill('- ', bytes) },
    { name: 'table of 500 columns', content: wideTable(500, bytes) },
    { name: '250,000 emphasis markers', content: fill('*a', Math.min(bytes, 500_000)) },
    { name: 'emphasis markers mixed', content: fill('*_', bytes) },
    { name: 'long line without spaces', content: fill('a', bytes) },
    { name: 'long URL', content: `https://example.com/${fill('a', bytes - 32)}` },
    { name: 'bare URLs', content: fill('http://a.b/ ', bytes) },
    { name: 'Hangul without spaces', content: fill('한', bytes) },
    { name: 'Hangul mixed with Markdown', content: fill('한국어 블로그를 `code` **굵게** [링크](https://x.kr) <b>태그</b> ~~취소~~ ', bytes) },
    { name: 'headings of one text', content: fill('## x\n\n', bytes) },
    { name: 'open code fences', content: fill('```\n', bytes) },
    { name: 'fences of falling length', content: lines(1500, (i) => '`'.repeat(Math.max(3, 1500 - i)), bytes) },
    { name: 'html blocks', content: fill('<div>\n', bytes) },
    { name: 'link reference definitions', content: fill('[a]: http://x\n', bytes) },
  ];
}
