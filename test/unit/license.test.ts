/**
 * Issue 27 B13: the project had no LICENSE although package.json said MIT. The file is the MIT
 * text, and no dependency the image ships (package-lock.json, dev dependencies left out) has a
 * licence that would forbid distributing Folio under it: permissive ones; LGPL only for
 * sharp's prebuilt libvips, which is a separately replaceable shared library; MPL-2.0 only for
 * satori, whose copyleft covers its own files, which we ship unmodified; OFL-1.1 only for the
 * Pretendard font the social cards are drawn with, which may be bundled with any software.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, root), 'utf8');

/** Licences allowed for one named package only (see the header for why each is fine). */
const NAMED: Record<string, string> = { satori: 'MPL-2.0', pretendard: 'OFL-1.1' };

const PERMISSIVE = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD', 'Unlicense', 'PSF-2.0', 'WTFPL']);

/** Every licence an SPDX expression needs (AND) or may choose from (OR: one permitted choice suffices). */
function permitted(expression: string, name: string): boolean {
  const alternatives = expression.replace(/[()]/g, '').split(/\s+OR\s+/);
  return alternatives.some((alt) =>
    alt
      .split(/\s+AND\s+/)
      .every((id) => PERMISSIVE.has(id) || NAMED[name] === id || (id.startsWith('LGPL-') && /(^|\/)@img\/sharp-(libvips-)?[a-z0-9-]+$/.test(name))),
  );
}

describe('LICENSE', () => {
  it('is the MIT licence that package.json names', () => {
    const text = read('LICENSE');
    expect(JSON.parse(read('package.json')).license).toBe('MIT');
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} \S/);
    expect(text).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy');
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });

  it('is compatible with every licence of the production dependencies', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; license?: string }> };
    const production = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev !== true);
    expect(production.length).toBeGreaterThan(50);
    const refused = production
      .filter(([path, entry]) => !entry.license || !permitted(entry.license, path.replace(/^.*node_modules\//, '')))
      .map(([path, entry]) => `${path}: ${entry.license ?? 'none'}`);
    expect(refused).toEqual([]);
  });

  it('ships in the Docker image beside the code', () => {
    expect(read('Dockerfile')).toMatch(/^COPY LICENSE \.\/$/m);
  });
});
