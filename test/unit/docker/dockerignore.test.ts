import { describe, expect, it } from 'vitest';
import { parseDockerIgnore } from '../../support/docker/dockerignore.js';

describe('parseDockerIgnore (Docker semantics, not .gitignore)', () => {
  it('anchors patterns at the context root and takes everything under a matching folder', () => {
    const ignore = parseDockerIgnore('# comment\n\nnode_modules\n/dist/\n');
    expect(ignore.excludes('node_modules')).toBe(true);
    expect(ignore.excludes('node_modules/koa/package.json')).toBe(true);
    expect(ignore.excludes('dist/src/main.js')).toBe(true);
    // Unlike .gitignore, a bare name is not matched in subfolders.
    expect(ignore.excludes('src/node_modules/x.js')).toBe(false);
    expect(ignore.excludes('# comment')).toBe(false);
  });

  it('lets * and ? stop at a slash and ** cross folders', () => {
    const ignore = parseDockerIgnore('*.log\nsrc/?.tmp\n**/*.bak\ndocs/**\n');
    expect(ignore.excludes('npm.log')).toBe(true);
    expect(ignore.excludes('src/npm.log')).toBe(false);
    expect(ignore.excludes('src/a.tmp')).toBe(true);
    expect(ignore.excludes('src/ab.tmp')).toBe(false);
    expect(ignore.excludes('x.bak')).toBe(true);
    expect(ignore.excludes('a/b/c/x.bak')).toBe(true);
    expect(ignore.excludes('docs/a/b.md')).toBe(true);
  });

  it('gives the last matching line the say, so an exception brings a path back', () => {
    const ignore = parseDockerIgnore('data\n!data/.gitkeep\n*.md\n!README.md\nREADME.md\n');
    expect(ignore.excludes('data/folio.db')).toBe(true);
    expect(ignore.excludes('data/.gitkeep')).toBe(false);
    expect(ignore.hasExceptionsUnder('data')).toBe(true);
    expect(ignore.hasExceptionsUnder('src')).toBe(false);
    expect(ignore.excludes('CHANGES.md')).toBe(true);
    expect(ignore.excludes('README.md')).toBe(true);
  });

  it('reads character classes and escapes regex characters literally', () => {
    const ignore = parseDockerIgnore('file[0-9].txt\na+b.(c)\n[!x]y\n');
    expect(ignore.excludes('file7.txt')).toBe(true);
    expect(ignore.excludes('fileA.txt')).toBe(false);
    expect(ignore.excludes('a+b.(c)')).toBe(true);
    expect(ignore.excludes('aab.c')).toBe(false);
    expect(ignore.excludes('zy')).toBe(true);
    expect(ignore.excludes('xy')).toBe(false);
  });
});
