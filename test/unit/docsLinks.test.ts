import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ link to each other by relative path and by heading anchor; a page
 * renamed or a heading reworded breaks those links silently on GitHub. This test resolves every
 * relative link and every #anchor of README.md and docs/*.md the way GitHub does. Absolute
 * http(s) links are not fetched: the tests run without the network.
 */

/** The lines of a Markdown file that are prose: fenced code blocks are blanked out. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return '';
    }
    return line;
  });
}

/** A line without its code spans and HTML comments, where link syntax is only text. */
function withoutCode(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, '').replace(/<!--.*?-->/g, '');
}

/**
 * The anchor GitHub gives a heading: the text (links and code marks taken as their text), lower
 * case, everything but letters, marks, digits, spaces, hyphens and underscores dropped, spaces
 * made hyphens; a repeated slug gets -1, -2, … (github-slugger's rule).
 */
function headingSlugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Every inline link or image target of a Markdown file, outside code. */
function linkTargets(text: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  proseLines(text).forEach((line, index) => {
    for (const match of withoutCode(line).matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line: index + 1, target: match[1]!.replace(/^<|>$/g, '') });
    }
  });
  return found;
}

const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** What is wrong with each relative link of the pages given, as `file:line → target: why`. */
function brokenLinks(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const { line, target } of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: not fetched
      const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const path = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
      const where = `${file}:${line} → ${target}`;
      if (!existsSync(path)) {
        broken.push(`${where}: ${path} does not exist`);
        continue;
      }
      if (anchor !== undefined && path.endsWith('.md') && !headingSlugs(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor))) {
        broken.push(`${where}: no heading of ${path} has the anchor #${anchor}`);
      }
    }
  }
  return broken;
}

describe('links in README.md and docs/', () => {
  it('makes anchors as GitHub does', () => {
    const slugs = headingSlugs(
      '# Title\n## HTTPS on one VM (Caddy)\n### Varnish: `deploy/varnish/folio.vcl`\n## Title\n```\n# not a heading\n```\n## 검색 Search_2\n',
    );
    expect([...slugs]).toEqual(['title', 'https-on-one-vm-caddy', 'varnish-deployvarnishfoliovcl', 'title-1', '검색-search_2']);
  });

  it('every relative link names a file that exists, and every #anchor a heading of it', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.flatMap((file) => linkTargets(readFileSync(file, 'utf8'))).length).toBeGreaterThan(20);
    expect(brokenLinks(pages)).toEqual([]);
  });
});
