/**
 * The `/search/` page's script: the API's own tokenizer (src/search/tokenize.ts and
 * koreanStems.ts), its BM25 arithmetic (bm25.ts) and the static index's query
 * (static/staticQuery.ts), as compiled to JavaScript, followed by templates/search/client.js, in
 * one function scope. Sharing the compiled code is what keeps the browser's terms equal to the
 * index's (`블로그를` and `블로그` meet, `비` never finds `비빔밥`) and its ranking equal to the
 * API's, score for score.
 *
 * The compiled files are read from the package's dist/src/search: `npm start`
 * and the image build it, and `npm test` builds it before the tests. One place, so every process
 * (server, CLI, render workers) publishes the same bytes under the same hashed name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../lib/paths.js';

/** Dependencies first: each file may use what the ones before it define. */
const SHARED_MODULES = ['koreanStems.js', 'tokenize.js', 'bm25.js', 'static/staticQuery.js'];

/** An ES module's text as plain declarations: its imports (of the files before it) and `export` go. */
function declarationsOf(source: string): string {
  return source
    .split('\n')
    .filter((line) => !/^import\s.*;\s*$/.test(line) && !line.startsWith('//# sourceMappingURL='))
    .map((line) => (line.startsWith('export ') ? line.slice('export '.length) : line))
    .join('\n');
}

/** The compiled files the script is made of besides the theme's client.js (which the theme's fingerprint covers). */
export function searchScriptModules(): string[] {
  return SHARED_MODULES.map((name) => join(packageRoot, 'dist', 'src', 'search', name));
}

export function buildSearchScript(templatesDir: string): string {
  const dir = join(packageRoot, 'dist', 'src', 'search');
  if (!SHARED_MODULES.every((name) => existsSync(join(dir, name))))
    throw new Error(`the search page needs the compiled search code (${SHARED_MODULES.join(', ')}) in dist/src/search: run \`npm run build\``);
  const shared = SHARED_MODULES.map((name) => declarationsOf(readFileSync(join(dir, name), 'utf8')));
  const client = readFileSync(join(templatesDir, 'search', 'client.js'), 'utf8');
  return `(() => {\n'use strict';\n${shared.join('\n')}\n${client}\n})();\n`;
}
