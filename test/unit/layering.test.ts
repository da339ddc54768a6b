import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The files of src/ a source file imports, as paths under src/: static, type-only, side-effect,
 * `export … from` and dynamic `import()` alike, since each ties the importer to the module.
 */
function srcImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.[^']+)'/gm)]
    .map((m) => relative('src', normalize(join(dirname(file), m[1]!))).replace(/\.js$/, '.ts'))
    .filter((target) => !target.startsWith('..'));
}

/** The top-level folder of a path under src/; files at the root are folder `.`. */
function folderOf(rel: string): string {
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.';
}

/** Every import in src/ as `importer -> target`, both relative to src/. */
function srcEdges(): { from: string; to: string }[] {
  return sourceFiles('src').flatMap((file) => srcImports(file).map((to) => ({ from: relative('src', file), to })));
}

describe('layering', () => {
  it('nothing in src/ outside src/http imports Koa, and the publish pipeline never imports the HTTP layer', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles('src')) {
      const rel = relative('src', file);
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      if (!rel.startsWith('http/') && imports.some((i) => i === 'koa' || i.startsWith('@koa/') || i.startsWith('koa-'))) offenders.push(rel);
      if (
        (rel.startsWith('publish/') || rel.startsWith('services/') || rel.startsWith('search/') || rel.startsWith('storage/')) &&
        imports.some((i) => i.includes('/http/'))
      ) {
        offenders.push(rel);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('neither src/ nor bench/ imports anything from test/ (the image and the bench build have no test/)', () => {
    const offenders: string[] = [];
    for (const dir of ['src', 'bench']) {
      for (const file of sourceFiles(dir)) {
        const targets = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)));
        if (targets.some((target) => target.startsWith(`test/`) || target === 'test')) offenders.push(file);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('loads pg only through src/db/sql/pgModule.ts, on the first PostgreSQL connection: a server on SQLite never loads it', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles('src')) {
      if (relative('src', file) === 'db/sql/pgModule.ts') continue;
      // Any value import of pg or its parts (a type-only import leaves nothing at run time).
      if (/^\s*import\s+(?!type\b)[^;]*from\s+'pg(?:-[\w-]+)?(?:\/[^']*)?'|\bimport\s*\(\s*'pg\b|require\(\s*'pg\b/m.test(readFileSync(file, 'utf8'))) {
        offenders.push(relative('src', file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it('has no import cycles in src/ (type-only imports included)', () => {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles('src')) {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
      graph.set(normalize(file), targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (node: string): void => {
      state.set(node, 'open');
      path.push(node);
      for (const next of graph.get(node) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles).toEqual([]);
  });

  it('has no import cycles between the top-level folders of src/ (type-only imports included; root files are folder ".")', () => {
    const edges = new Map<string, Map<string, string>>();
    for (const { from, to } of srcEdges()) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      if (!edges.get(a)!.has(b)) edges.get(a)!.set(b, `${from} -> ${to}`);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (folder: string): void => {
      state.set(folder, 'open');
      path.push(folder);
      for (const next of edges.get(folder)?.keys() ?? []) {
        if (state.get(next) === 'open') {
          const loop = [...path.slice(path.indexOf(next)), next];
          cycles.push(
            loop
              .slice(1)
              .map((to, i) => `${loop[i]} -> ${to} (${edges.get(loop[i]!)!.get(to)})`)
              .join(', '),
          );
        } else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(folder, 'done');
    };
    for (const folder of edges.keys()) if (!state.has(folder)) visit(folder);
    expect(edges.size).toBeGreaterThan(10);
    expect(cycles).toEqual([]);
  });

  it('keeps the folder rules: publishing, the database and the shared vocabulary stay below what uses them, and nothing imports the src/ root', () => {
    const rules: { folder: string; never: (target: string) => boolean; rule: string }[] = [
      { folder: 'publish', never: (t) => ['http', 'services', 'warmup'].includes(folderOf(t)), rule: 'publish/ never imports http/, services/ or warmup/' },
      { folder: 'db', never: (t) => ['publish', 'services', 'http'].includes(folderOf(t)), rule: 'db/ never imports publish/, services/ or http/' },
      { folder: 'domain', never: (t) => folderOf(t) !== 'domain', rule: 'domain/ imports nothing else from src/' },
      { folder: 'lib', never: (t) => folderOf(t) !== 'lib', rule: 'lib/ imports nothing else from src/' },
    ];
    const offenders: string[] = [];
    for (const { from, to } of srcEdges()) {
      for (const { folder, never, rule } of rules) if (folderOf(from) === folder && never(to)) offenders.push(`${rule}: ${from} -> ${to}`);
      // The root holds process entries only (main.ts, cliMain.ts), which nothing imports.
      if (folderOf(to) === '.') offenders.push(`nothing imports a file at the src/ root: ${from} -> ${to}`);
    }
    expect(offenders).toEqual([]);
  });
});

it('every src/… or test/… path named in a comment in src/ exists (.js read as .ts; folders and globs by their fixed part)', async () => {
  // Comments are found with TypeScript's scanner, so a `//` inside a string, a template or a
  // regular expression is not taken for one. A `/` after a value divides; anywhere else it
  // starts a regular expression. A `}` closing a template's `${` resumes the template.
  const ts = (await import('typescript')).default;
  const K = ts.SyntaxKind;
  const endsValue = new Set([
    K.Identifier,
    K.CloseParenToken,
    K.CloseBracketToken,
    K.CloseBraceToken,
    K.NumericLiteral,
    K.StringLiteral,
    K.NoSubstitutionTemplateLiteral,
    K.TemplateTail,
    K.ThisKeyword,
    K.SuperKeyword,
    K.TrueKeyword,
    K.FalseKeyword,
    K.NullKeyword,
    K.RegularExpressionLiteral,
    K.PlusPlusToken,
    K.MinusMinusToken,
  ]);
  const commentsOf = (file: string): { line: number; text: string }[] => {
    const text = readFileSync(file, 'utf8');
    // Comments come in order, so the line count runs on from the previous one.
    let counted = 0;
    let line = 1;
    const lineOf = (pos: number): number => {
      for (; counted < pos; counted++) if (text.charCodeAt(counted) === 10) line++;
      return line;
    };
    if (file.endsWith('.sql')) return text.split('\n').flatMap((line, i) => (line.trimStart().startsWith('--') ? [{ line: i + 1, text: line }] : []));
    const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
    const comments: { line: number; text: string }[] = [];
    const braces: ('block' | 'template')[] = [];
    let previous = K.Unknown;
    for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
      if (token === K.SingleLineCommentTrivia || token === K.MultiLineCommentTrivia) {
        comments.push({ line: lineOf(scanner.getTokenStart()), text: scanner.getTokenText() });
        continue;
      }
      if (token === K.WhitespaceTrivia || token === K.NewLineTrivia) continue;
      if ((token === K.SlashToken || token === K.SlashEqualsToken) && !endsValue.has(previous)) token = scanner.reScanSlashToken();
      if (token === K.OpenBraceToken) braces.push('block');
      else if (token === K.TemplateHead) braces.push('template');
      else if (token === K.CloseBraceToken && braces.pop() === 'template') {
        token = scanner.reScanTemplateToken(false);
        if (token === K.TemplateMiddle) braces.push('template');
      }
      previous = token;
    }
    return comments;
  };
  const exists = (path: string): boolean => statSync(path, { throwIfNoEntry: false }) !== undefined;
  const resolves = (named: string): boolean => {
    const glob = named.indexOf('*');
    if (glob >= 0) return exists(named.slice(0, named.lastIndexOf('/', glob) + 1));
    return exists(named) || (named.endsWith('.js') && exists(`${named.slice(0, -3)}.ts`));
  };
  const allFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? allFiles(path) : /\.(ts|sql)$/.test(path) && !path.includes('/generated/') ? [path] : [];
    });
  const named: string[] = [];
  const missing: string[] = [];
  for (const file of allFiles('src')) {
    for (const comment of commentsOf(file)) {
      for (const match of comment.text.matchAll(/(?<![\w./-])(?:src|test)\/[\w./*-]*/g)) {
        const path = match[0].replace(/\.+$/, '');
        named.push(path);
        if (!resolves(path)) missing.push(`${file}:${comment.line} → ${path}`);
      }
    }
  }
  expect(named.length).toBeGreaterThan(20);
  expect(missing).toEqual([]);
});
