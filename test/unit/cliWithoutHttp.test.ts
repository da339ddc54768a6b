/**
 * A `folio` command composes the core without the HTTP app (src/compose/core.ts): nothing the
 * command line imports, at load or when a command runs (its handlers import their modules then),
 * ours or a package, reaches Koa or the app that wires it.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** Every file and package a module reaches through value imports (`import type` is erased) and `import('…')`. */
function reached(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    const specs = [
      ...[...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?'([^']+)'/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    ];
    for (const spec of specs) {
      if (!spec.startsWith('.')) packages.add(spec);
      else {
        const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
        if (existsSync(target)) visit(target);
      }
    }
  };
  visit(normalize(entry));
  return { files, packages };
}

describe('the command line', () => {
  it('loads neither Koa nor the HTTP app', () => {
    const { files, packages } = reached('src/cliMain.ts');
    expect(files.has(normalize('src/compose/core.ts')), 'the walk reaches the composition root').toBe(true);
    expect([...packages].filter((p) => p === 'koa' || p.startsWith('@koa/') || p.startsWith('koa-'))).toEqual([]);
    expect([...files].filter((f) => f.endsWith(normalize('http/app.ts')) || f.endsWith(normalize('compose/http.ts')))).toEqual([]);
  });

  it('while the server does (the check can fail)', () => {
    const { packages } = reached('src/main.ts');
    expect(packages.has('koa')).toBe(true);
  });
});
