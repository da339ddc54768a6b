/**
 * Hugo's page-relative aliases (gohugo.io, URL management): an alias without a leading `/` is
 * resolved beside the page, in the folder of its address, `..` included; `folio push` reads them
 * the same way.
 */
import { describe, expect, it } from 'vitest';
import { parsePostFile } from '../../../src/sync/frontMatter.js';

const aliasesOf = (file: string, aliases: string) => parsePostFile(file, `---\ntitle: T\naliases: ${aliases}\n---\nText.`).aliases;

describe('Hugo aliases in folio push', () => {
  it('resolves a page-relative alias beside the page, as in the Hugo documentation', () => {
    // content/examples/example-1.md: `old-name` → /examples/old-name/, `../old/path` → /old/path/.
    expect(aliasesOf('content/examples/example-1.md', "['/old-url', 'old-name', '../old/path']")).toEqual(['/old-url', '/examples/old-name', '/old/path']);
    // The content folder pushed on its own: the same addresses.
    expect(aliasesOf('examples/example-1.md', "['old-name/']")).toEqual(['/examples/old-name/']);
  });

  it('puts a page bundle’s relative aliases beside its folder, and keeps a trailing slash and a file name', () => {
    expect(aliasesOf('content/posts/bundle-one/index.md', '["old-bundle-one/", "./older.html", "../../top/"]')).toEqual([
      '/posts/old-bundle-one/',
      '/posts/older.html',
      '/top/',
    ]);
  });

  it('takes a relative alias from the root for a file at the top of the folder, and Jekyll fields from the root always', () => {
    expect(aliasesOf('hello.md', '[old/]')).toEqual(['/old/']);
    const jekyll = parsePostFile('_posts/2019-01-01-x.md', '---\ntitle: T\nredirect_from: [old-x/]\npermalink: blog/x.html\n---\nText.');
    expect(jekyll.aliases).toEqual(['/blog/x.html', '/old-x/']);
  });
});
