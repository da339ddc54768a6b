import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../src/lib/clock.js';
import { compose } from '../src/compose/compose.js';
import type { Folio } from '../src/compose/folio.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/lib/logger.js';
import type { CorpusPost } from './corpus.js';

class SettableClock implements Clock {
  current = new Date();
  now(): Date {
    return new Date(this.current);
  }
}

export interface ImportedBlog {
  dataDir: string;
  blogSlug: string;
  apiKey: string;
  blogId: string;
}

/**
 * Writes a corpus into a fresh data dir through the service layer, each post published at its
 * corpus date (spread over the day so dates differ). Jobs are marked done without rendering:
 * the benchmarks that follow render the site themselves.
 */
export async function importCorpus(posts: readonly CorpusPost[], blogSlug: string): Promise<ImportedBlog> {
  const dataDir = mkdtempSync(join(tmpdir(), 'folio-bench-data-'));
  return importInto(dataDir, posts, blogSlug, 0);
}

/**
 * Adds more posts to a blog importCorpus made, published at their corpus dates: the `scale`
 * section grows one data dir from 1,000 to 100,000 posts instead of importing each size anew.
 * `offset` is how many posts the blog has (it spreads the dates over the day as importCorpus does).
 */
export async function importMore(blog: ImportedBlog, posts: readonly CorpusPost[], offset: number): Promise<void> {
  await importInto(blog.dataDir, posts, blog.blogSlug, offset, blog);
}

async function importInto(dataDir: string, posts: readonly CorpusPost[], blogSlug: string, offset: number, existing?: ImportedBlog): Promise<ImportedBlog> {
  const clock = new SettableClock();
  const folio = await compose({
    config: loadConfig({ FOLIO_DATA_DIR: dataDir }),
    logger: createLogger('warn'),
    clock,
    jobHandler: async () => {},
  });
  const { apiKey, blog } = existing ? { apiKey: existing.apiKey, blog: (await folio.repos.blogs.findBySlug(blogSlug))! } : await createBlog(folio, blogSlug);
  for (const [i, post] of posts.entries()) {
    clock.current = new Date(`${post.date}T00:00:00.000Z`);
    clock.current.setUTCSeconds((offset + i) % 86_400);
    await folio.posts.create(blog, { title: post.title, contentMd: post.body, slug: post.slug, tags: post.tags.slice(0, 10), status: 'published' });
  }
  await folio.close();
  return { dataDir, blogSlug, apiKey, blogId: blog.id };
}

async function createBlog(folio: Folio, blogSlug: string) {
  const { account, apiKey } = await folio.accounts.create({ plan: 'enterprise' });
  const blog = await folio.blogs.create(
    {
      via: 'key',
      account,
      key: { id: 'bench', accountId: account.id, blogId: null, name: 'bench', keyPrefix: '', scopes: ['*'], lastUsedAt: null, createdAt: '', expiresAt: null },
    },
    { slug: blogSlug, name: `Bench blog ${blogSlug}`, description: 'Generated corpus' },
  );
  return { apiKey, blog };
}

/** Removes an imported data dir (a 50,000-post one is 2.7 GB), unless FOLIO_BENCH_KEEP is set to look into it. */
export function removeImported(blog: ImportedBlog): void {
  if (process.env.FOLIO_BENCH_KEEP) {
    process.stderr.write(`bench: kept ${blog.dataDir}\n`);
    return;
  }
  rmSync(blog.dataDir, { recursive: true, force: true });
}
