/**
 * A big blog in seconds: `count` published posts written through the services of an app whose
 * jobs do nothing (nothing is rendered), a minute apart, in the data dir given. The caller then
 * starts its own app on that data dir with the returned clock and renders the blog.
 */
import type { FakeClock } from './fakeClock.js';
import { startTestApp } from './testApp.js';

export interface SeededBlog {
  key: string;
  blogId: string;
  blogSlug: string;
  /** The posts' slugs, oldest first. */
  slugs: string[];
  clock: FakeClock;
}

export async function seedBlog(
  dataDir: string,
  env: Record<string, string>,
  blog: { slug: string; name: string },
  count: number,
  tagsOf: (i: number) => string[],
): Promise<SeededBlog> {
  const seed = await startTestApp({ dataDir, env, jobHandler: async () => {} });
  try {
    const created = (await seed.request('POST', '/v1/blogs', { body: blog })).body;
    const row = (await seed.folio.repos.blogs.findById(created.id))!;
    const slugs: string[] = [];
    for (let i = 0; i < count; i += 1) {
      seed.clock.advance(60_000);
      const post = await seed.folio.posts.create(row, { title: `Post number ${i}`, contentMd: `Body of post ${i}.`, tags: tagsOf(i), status: 'published' });
      slugs.push(post.slug);
    }
    return { key: seed.key, blogId: created.id, blogSlug: created.slug, slugs, clock: seed.clock };
  } finally {
    await seed.close();
  }
}
