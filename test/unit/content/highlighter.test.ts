/**
 * Lazily loaded grammars highlight exactly as the whole highlight.js package does, for every
 * language and alias it knows, including grammars that embed others (HTML with script and
 * style, Markdown with fences, PHP templates). The comparison runs in a fresh process, where
 * nothing else has loaded a grammar yet, so the lazy loader starts as it does in the server.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SAMPLE = [
  '<!doctype html><html><head><style>body { color: red; }</style>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: sample source text for the highlighter.
  '<script>const x = `a${1 + 2}`; function f(a) { return a * 2 }</script></head>',
  '<body class="x"><?php echo $y; ?> {{ value | filter }} <% ruby_code %></body></html>',
  '# Title\n\n```js\nlet y = 1;\n```\n\nSELECT * FROM t WHERE a = 1; -- comment',
  'def f(x):\n    return x  # python\nfn main() { println!("{}", 1); }',
].join('\n');

const script = `
const { highlightCode } = await import('./dist/src/content/highlighter.js');
const full = (await import('highlight.js')).default;
const names = new Set();
for (const name of full.listLanguages()) {
  names.add(name);
  for (const alias of full.getLanguage(name).aliases ?? []) names.add(alias);
}
const sample = ${JSON.stringify(SAMPLE)};
const differing = [];
let loaded = 0;
// Grammars that embed others first, while nothing else is loaded: an embedded grammar the lazy
// loader forgot would show here rather than be masked by an earlier test having loaded it.
const { readFileSync } = await import('node:fs');
const embeds = (name) => readFileSync('node_modules/highlight.js/lib/languages/' + name + '.js', 'utf8').includes('subLanguage');
const order = [...names].sort((a, b) => {
  const ea = full.listLanguages().includes(a) && embeds(a), eb = full.listLanguages().includes(b) && embeds(b);
  return ea === eb ? a.localeCompare(b) : ea ? -1 : 1;
});
for (const name of order) {
  const a = highlightCode(sample, name);
  if (a === null) { differing.push(name + ': not found'); continue; }
  loaded++;
  const b = full.highlight(sample, { language: name, ignoreIllegals: true }).value;
  if (a !== b) differing.push(name);
}
console.log(JSON.stringify({ names: names.size, loaded, differing, unknown: highlightCode('x', 'no-such-language'), hostile: highlightCode('x', '../../package') }));
`;

describe('highlight.js grammars loaded on demand', () => {
  it('highlight every language and alias exactly as the whole package does', () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), maxBuffer: 16 * 1024 * 1024 }).toString(),
    ) as {
      names: number;
      loaded: number;
      differing: string[];
      unknown: unknown;
      hostile: unknown;
    };
    expect(out.names).toBeGreaterThan(300);
    expect(out.differing).toEqual([]);
    expect(out.loaded).toBe(out.names);
    expect(out.unknown).toBeNull();
    expect(out.hostile).toBeNull();
  }, 60_000);
});
