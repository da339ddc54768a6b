/**
 * `.dockerignore` as Docker reads it (moby/patternmatcher), so that the build-context test sends
 * the Dockerfile exactly what `docker build` would. Differences from .gitignore that matter:
 * patterns are anchored at the context root (`node_modules` is only the top-level one, `**`
 * reaches into subfolders), a folder that matches takes everything under it, and the last
 * matching line wins, so `!keep` after `dir` brings `keep` back.
 */
import { posix } from 'node:path';

interface IgnorePattern {
  regex: RegExp;
  /** A `!` line: a match brings the path back into the context. */
  exception: boolean;
}

export interface DockerIgnore {
  /** True when `path` (relative to the context, `/`-separated) is left out of the context. */
  excludes(path: string): boolean;
  /** True when some `!` line could bring back a path inside `dir` (so an excluded dir is still walked). */
  hasExceptionsUnder(dir: string): boolean;
}

export function parseDockerIgnore(text: string): DockerIgnore {
  const patterns: Array<IgnorePattern & { source: string }> = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const exception = line.startsWith('!');
    if (exception) line = line.slice(1).trim();
    if (line === '') continue;
    let cleaned = posix.normalize(line);
    if (cleaned.length > 1 && cleaned.startsWith('/')) cleaned = cleaned.slice(1);
    if (cleaned.length > 1 && cleaned.endsWith('/')) cleaned = cleaned.slice(0, -1);
    patterns.push({ regex: patternRegex(cleaned), exception, source: cleaned });
  }

  const matches = (pattern: IgnorePattern, path: string): boolean => {
    if (pattern.regex.test(path)) return true;
    // A pattern that names a parent folder excludes (or brings back) everything inside it.
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i += 1) if (pattern.regex.test(parts.slice(0, i).join('/'))) return true;
    return false;
  };

  return {
    excludes(path) {
      const clean = posix.normalize(path).replace(/^\.\//, '');
      let excluded = false;
      for (const pattern of patterns) if (matches(pattern, clean)) excluded = !pattern.exception;
      return excluded;
    },
    hasExceptionsUnder(dir) {
      const prefix = `${posix.normalize(dir)}/`;
      return patterns.some((p) => p.exception && (p.source.startsWith(prefix) || p.source.startsWith('*')));
    },
  };
}

/** patternmatcher's translation: `*` and `?` stop at `/`, `**` crosses folders, `[..]` is a class. */
function patternRegex(pattern: string): RegExp {
  let out = '^';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        i += 1;
        if (pattern[i + 1] === '/') i += 1;
        out += i + 1 >= pattern.length ? '.*' : '(.*/)?';
      } else {
        out += '[^/]*';
      }
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new Error(`.dockerignore: unclosed [ in ${pattern}`);
      const body = pattern.slice(i + 1, end);
      out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
      i = end;
    } else if (ch === '\\' && i + 1 < pattern.length) {
      i += 1;
      out += escapeRegex(pattern[i]!);
    } else {
      out += escapeRegex(ch);
    }
  }
  return new RegExp(`${out}$`);
}

function escapeRegex(ch: string): string {
  return /[.+^${}()|[\]\\]/.test(ch) ? `\\${ch}` : ch;
}
