/**
 * highlight.js with each language loaded the first time a code block names it. The package's
 * index registers all 193 grammars when imported (a quarter of a second of start-up, every
 * process, whether or not any post has code); here the core starts empty and a grammar is
 * required on demand: by file name (`python`), or by alias (`py`, `html`), found in an index of
 * the aliases each grammar file declares, read as text without evaluating anything. Grammars
 * that embed others (`subLanguage`: HTML's scripts and styles, Markdown's fences) bring those
 * along, so a block highlights exactly as with the whole package (test/unit/content/highlighter.test.ts
 * compares every language and alias).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HLJSApi, LanguageFn } from 'highlight.js';

const require = createRequire(import.meta.url);

/**
 * An instance of its own: whoever imports the whole package elsewhere does not share it. Made on
 * the first code block, not at start-up (the core alone takes milliseconds to load).
 */
let instance: HLJSApi | null = null;
const hljs = (): HLJSApi => (instance ??= (require('highlight.js/lib/core') as HLJSApi).newInstance());

const LIB = dirname(require.resolve('highlight.js/lib/core'));

interface LanguageIndex {
  /** Language or alias (lower case) → the grammar's file name, as the package index resolves it. */
  byName: Map<string, string>;
  /** File name → the languages its grammar embeds. */
  embeds: Map<string, string[]>;
}

let index: LanguageIndex | null = null;

const quoted = (text: string): string[] => [...text.matchAll(/['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/**
 * Built on first use from the package's own index (which grammar is registered under which name,
 * in its order: a later grammar's alias wins, as in hljs) and each grammar file's literal
 * `aliases` and `subLanguage` declarations.
 */
function languageIndex(): LanguageIndex {
  if (index) return index;
  const byName = new Map<string, string>();
  const embeds = new Map<string, string[]>();
  const packageIndex = readFileSync(join(LIB, 'index.js'), 'utf8');
  for (const [, name, file] of packageIndex.matchAll(/registerLanguage\('([^']+)', require\('\.\/languages\/([^']+)'\)\)/g)) {
    const source = readFileSync(join(LIB, 'languages', `${file!}.js`), 'utf8');
    byName.set(name!.toLowerCase(), file!);
    for (const [, list] of source.matchAll(/aliases\s*[:=]\s*\[([^\]]*)\]/g)) for (const alias of quoted(list!)) byName.set(alias.toLowerCase(), file!);
    embeds.set(
      file!,
      [...source.matchAll(/subLanguage:\s*(\[[^\]]*\]|'[^']*'|"[^"]*")/g)].flatMap((m) => quoted(m[1]!)),
    );
  }
  index = { byName, embeds };
  return index;
}

function register(file: string, seen: Set<string>): void {
  if (seen.has(file) || hljs().getLanguage(file)) return;
  seen.add(file);
  hljs().registerLanguage(file, require(join(LIB, 'languages', file)) as LanguageFn);
  const { byName, embeds } = languageIndex();
  for (const embedded of embeds.get(file) ?? []) {
    const target = byName.get(embedded.toLowerCase());
    if (target) register(target, seen);
  }
}

/**
 * `code` highlighted as `language` (a name or alias, any case) as HTML, or null when highlight.js
 * has no such language. The grammar is found through the index, not the instance's own alias
 * table: two grammars claim some aliases (`ls`), and the one registered last here need not be
 * the one the whole package registers last.
 */
export function highlightCode(code: string, language: string): string | null {
  if (!/^[\w.+#-]{1,40}$/.test(language)) return null;
  const file = languageIndex().byName.get(language.toLowerCase());
  if (!file) return null;
  register(file, new Set());
  return hljs().highlight(code, { language: file, ignoreIllegals: true }).value;
}
