/**
 * The repositories of posts and what hangs off them (revisions, media, the publish pipeline's
 * reads) on a real PostgreSQL: the texts they choose by `dialect` included.
 */
import { describe, expect, it } from 'vitest';
import { MediaRepo, type Media } from '../../src/db/mediaRepo.js';
import { PostRevisionsRepo } from '../../src/db/postRevisionsRepo.js';
import { PostsRepo } from '../../src/db/postsRepo.js';
import { SiteRepo } from '../../src/db/siteRepo.js';
import type { PostListQuery } from '../../src/domain/post.js';
import { LATER, T0, newPost, usePostgres } from '../support/postgresRepos.js';

const { seeded } = usePostgres();
const DAY2 = '2026-03-25T10:00:00.000Z';
const COUNTS = { hangulWords: 0, latinWords: 1, hangulChars: 0, otherWords: 1 };

describe('posts on PostgreSQL', () => {
  it('lists by the sort column, never-published last, ties in insertion order either way', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    // Ids against insertion order: a tie broken by id would show.
    await posts.insert(newPost({ id: 'z2', slug: 'second', status: 'published', publishedAt: T0, tags: ['a'] }));
    await sql.transaction((tx) => posts.in(tx).insert(newPost({ id: 'm3', slug: 'third', tags: ['a', 'b'] })));
    await posts.insert(newPost({ id: 'a4', slug: 'fourth', status: 'published', publishedAt: LATER }));
    const ids = async (query: Partial<PostListQuery>) =>
      (await posts.list('b1', { page: 1, perPage: 10, sort: 'created_at', order: 'asc', ...query })).posts.map((p) => p.id);
    expect(await ids({})).toEqual(['p1', 'z2', 'm3', 'a4']);
    expect(await ids({ order: 'desc' })).toEqual(['a4', 'm3', 'z2', 'p1']);
    expect(await ids({ sort: 'published_at', order: 'desc' })).toEqual(['a4', 'z2', 'p1', 'm3']);
    expect(await ids({ sort: 'published_at', order: 'asc' })).toEqual(['p1', 'z2', 'a4', 'm3']);
    expect(await ids({ tag: 'a', order: 'desc' })).toEqual(['m3', 'z2']);
    expect(await ids({ status: 'draft' })).toEqual(['m3']);
    const page = await posts.list('b1', { page: 2, perPage: 3, sort: 'updated_at', order: 'asc' });
    expect(page).toEqual({ total: 4, posts: [expect.objectContaining({ id: 'a4', slug: 'fourth', tags: [], publishedAt: LATER })] });
  });

  it('exports a blog in insertion order, a page at a time, its seq as the cursor', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    for (const [id, md] of [
      ['z2', 'two'],
      ['m3', 'three'],
      ['a4', 'four'],
    ] as const) {
      await posts.insert(newPost({ id, slug: id, contentMd: md, textCounts: COUNTS }));
    }
    const first = await posts.exportPage('b1', 0, 2);
    expect(first.posts.map((p) => [p.id, p.contentHtml, p.textCounts])).toEqual([
      ['p1', '', null],
      ['z2', '', null],
    ]);
    const rest = await posts.exportPage('b1', first.next, 2);
    expect(rest.posts.map((p) => p.id)).toEqual(['m3', 'a4']);
    expect(await posts.exportPage('b1', rest.next, 2)).toEqual({ posts: [], next: rest.next });
    // Stops once the Markdown read reaches maxChars (one post at least).
    const bounded = await posts.exportPage('b1', first.next, 10, 4);
    expect(bounded.posts.map((p) => p.contentMd)).toEqual(['three']);
    expect((await posts.exportPage('b1', bounded.next, 10, 4)).posts.map((p) => p.id)).toEqual(['a4']);
  });

  it('is written, found, updated with its tags, and deleted', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    const post = newPost({ id: 'p2', slug: 'hello', tags: ['x', 'y'], textCounts: COUNTS, metaExplicit: true });
    await posts.insert(post);
    expect(await posts.findById('p2')).toEqual({ ...post, revision: 0 });
    expect(await posts.findBySlug('b1', 'hello')).toEqual({ ...post, revision: 0 });
    expect(await posts.versionBySlug('b1', 'hello')).toEqual({ id: 'p2', revision: 0 });
    await sql.transaction((tx) => posts.in(tx).update(Object.assign(post, { title: 'Hi', tags: ['y', 'z'] })));
    expect(post.revision).toBe(1);
    await posts.update(post);
    expect(await posts.findById('p2')).toMatchObject({ title: 'Hi', tags: ['y', 'z'], revision: 2 });
    expect(await sql.all("SELECT tag FROM post_tags WHERE post_id = 'p2' ORDER BY tag")).toEqual([{ tag: 'y' }, { tag: 'z' }]);
    await expect(posts.insert(newPost({ id: 'p3', slug: 'hello' }))).rejects.toMatchObject({ code: '23505' });
    await posts.delete('p2');
    expect(await posts.findById('p2')).toBeNull();
    expect(await posts.versionBySlug('b1', 'hello')).toBeNull();
  });

  it('finds slugs base and base-… as a range, also where the database collation ignores hyphens', async () => {
    // ICU with punctuation shifted sorts as glibc's en_US.UTF-8 does: `basement` between `base-` and `base-\u{10FFFF}`.
    const sql = await seeded({ icuLocale: 'en-US-u-ka-shifted' });
    const posts = new PostsRepo(sql);
    for (const slug of ['base', 'base-2', 'basement', 'base2', 'base-한국어', 'bas', 'basf']) await posts.insert(newPost({ id: `id-${slug}`, slug }));
    expect(await posts.slugsStartingWith('b1', 'base')).toEqual(
      new Map([
        ['base', 'id-base'],
        ['base-2', 'id-base-2'],
        ['base-한국어', 'id-base-한국어'],
      ]),
    );
  });

  it('keeps redirects and aliases, and lists due scheduled posts', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    await posts.addRedirect('b1', 'old', 'p1', T0);
    await posts.addRedirect('b1', 'older', 'p1', T0);
    await sql.transaction((tx) => posts.in(tx).addRedirect('b1', 'old', 'p1', LATER));
    expect(await posts.findRedirect('b1', 'old')).toBe('p1');
    expect(await posts.redirectsOf('p1')).toEqual(['old', 'older']);
    expect(await posts.removeRedirect('b1', 'old')).toBe('p1');
    expect(await posts.findRedirect('b1', 'old')).toBeNull();
    expect(await posts.removeRedirect('b1', 'old')).toBeNull();
    await posts.setAliases('b1', 'p1', ['/b', '/a'], T0);
    await sql.transaction((tx) => posts.in(tx).setAliases('b1', 'p1', ['/c', '/b'], T0));
    expect(await posts.aliasesOf('p1')).toEqual(['/c', '/b']);
    expect(await posts.aliasHolder('b1', '/b')).toBe('p1');
    expect(await posts.aliasHolder('b1', '/a')).toBeNull();
    await posts.insert(newPost({ id: 's2', slug: 's2', status: 'scheduled', scheduledAt: LATER }));
    await posts.insert(newPost({ id: 's1', slug: 's1', status: 'scheduled', scheduledAt: LATER }));
    await posts.insert(newPost({ id: 's0', slug: 's0', status: 'scheduled', scheduledAt: DAY2 }));
    expect((await posts.listDue(LATER, 10)).map((p) => p.id)).toEqual(['s1', 's2']);
    expect((await posts.listDue(DAY2, 1)).map((p) => p.id)).toEqual(['s1']);
  });
});

describe('post revisions on PostgreSQL', () => {
  it('are written, coalesced, sealed, listed, found and pruned to the newest and one per day', async () => {
    const sql = await seeded();
    const revisions = new PostRevisionsRepo(sql);
    expect(await revisions.newest('p1')).toBeNull();
    const revision = (id: string, createdAt: string) => ({ id, postId: 'p1', keyId: 'k1', createdAt, sealed: false, title: id, contentMd: `é ${id}` });
    await revisions.insert(revision('r1', T0));
    await sql.transaction((tx) => revisions.in(tx).insert(revision('r2', LATER)));
    expect(await revisions.newest('p1')).toEqual({ seq: 2, keyId: 'k1', openedAt: LATER, sealed: false });
    await revisions.replace(2, { createdAt: '2026-03-24T12:00:00.000Z', title: 'R2', contentMd: 'ab' });
    await revisions.sealNewest('p1');
    expect(await revisions.newest('p1')).toEqual({ seq: 2, keyId: 'k1', openedAt: LATER, sealed: true });
    for (const [id, at] of [
      ['r3', DAY2],
      ['r4', '2026-03-26T10:00:00.000Z'],
      ['r5', '2026-03-26T11:00:00.000Z'],
    ] as const) {
      await revisions.insert(revision(id, at));
    }
    expect(await revisions.find('p1', 'r2')).toEqual({ id: 'r2', createdAt: '2026-03-24T12:00:00.000Z', title: 'R2', contentMd: 'ab' });
    expect(await revisions.find('other', 'r2')).toBeNull();
    expect(await revisions.list('p1', 2, 3)).toEqual({
      total: 5,
      revisions: [
        { id: 'r2', createdAt: '2026-03-24T12:00:00.000Z', title: 'R2', contentLength: 2 },
        { id: 'r1', createdAt: T0, title: 'r1', contentLength: 5 },
      ],
    });
    // The newest two (r4, r5, of day 3), then the last revision of the newest other day (r3).
    await revisions.prune('p1', 2, 1);
    expect((await revisions.list('p1', 10, 0)).revisions.map((r) => r.id)).toEqual(['r5', 'r4', 'r3']);
  });
});

describe('media on PostgreSQL', () => {
  it('is recorded, found, listed newest first, named by posts, and deleted', async () => {
    const sql = await seeded();
    const repo = new MediaRepo(sql);
    const image = (id: string, hash: string, createdAt: string): Media => ({
      id,
      blogId: 'b1',
      hash,
      format: 'png',
      width: 640,
      height: 480,
      bytes: 3_000_000_000,
      storedBytes: 1200,
      createdAt,
    });
    await repo.insert(image('m1', 'cc', T0));
    await repo.insert(image('m2', 'aa', T0));
    await sql.transaction((tx) => repo.in(tx).insert(image('m3', 'bb', LATER)));
    await expect(repo.insert(image('m4', 'aa', LATER))).rejects.toMatchObject({ code: '23505' });
    expect(await repo.find('b1', 'm1')).toEqual(image('m1', 'cc', T0));
    expect(await repo.find('other', 'm1')).toBeNull();
    expect(await repo.findByHash('b1', 'bb')).toEqual(image('m3', 'bb', LATER));
    const { media, total } = await repo.list('b1', 1, 2);
    expect([media.map((m) => m.id), total]).toEqual([['m3', 'm2'], 3]);
    expect((await repo.list('b1', 2, 2)).media.map((m) => m.id)).toEqual(['m1']);
    expect((await repo.allOfBlog('b1')).map((m) => m.hash)).toEqual(['aa', 'bb', 'cc']);
    await repo.setPostRefs('p1', 'b1', ['aa', 'aa', 'bb']);
    await sql.transaction((tx) => repo.in(tx).setPostRefs('p1', 'b1', ['bb', 'cc']));
    expect(await repo.liveUser('b1', 'cc')).toBe('first');
    expect(await repo.liveUser('b1', 'aa')).toBeNull();
    await sql.run("UPDATE posts SET status = 'draft', published_at = NULL WHERE id = 'p1'");
    expect(await repo.liveUser('b1', 'cc')).toBeNull();
    await repo.delete('m1');
    expect(await repo.find('b1', 'm1')).toBeNull();
  });
});

describe('the publish pipeline reads on PostgreSQL', () => {
  it('reads bodies as bytes, published posts by id, and their byte sizes', async () => {
    const sql = await seeded();
    await new PostsRepo(sql).insert(newPost({ id: 'p2', slug: 'two', contentMd: 'é€', contentHtml: '<p>é€</p>', status: 'published', publishedAt: LATER }));
    await new PostsRepo(sql).insert(newPost({ id: 'd1', slug: 'draft', textCounts: COUNTS }));
    const site = new SiteRepo(sql);
    expect(await site.bodyBytes(['p2', 'gone', 'p1'])).toEqual([5 + 12, 0, 1 + 8]);
    expect(await site.bodyBytes([])).toEqual([]);
    const encoded = await site.publishedEncodedByIds(['p2', 'd1', 'gone']);
    expect(encoded.map((p) => [p.id, Buffer.from(p.contentMd).toString(), Buffer.from(p.contentHtml).toString(), p.tags])).toEqual([
      ['p2', 'é€', '<p>é€</p>', []],
    ]);
    expect(encoded[0]!.contentMd).toBeInstanceOf(Uint8Array);
    expect((await site.publishedByIds(['p1', 'p2', 'd1'])).map((p) => p.id).sort()).toEqual(['p1', 'p2']);
    // Inside a transaction, on the transaction's handle.
    expect(await sql.transaction(async (tx) => new SiteRepo(tx).bodyBytes(['p1']))).toEqual([9]);
    expect(await site.post('p2')).toMatchObject({ id: 'p2', contentMd: 'é€', contentHtml: '<p>é€</p>' });
    expect(await site.post('d1')).toMatchObject({ id: 'd1', contentMd: '' });
    expect(await site.postWithSource('d1')).toMatchObject({ id: 'd1', contentMd: '# draft' });
    expect(await site.post('gone')).toBeNull();
  });

  it('pages published posts oldest first, gives the newest for feeds, and follows the change log', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    await posts.insert(newPost({ id: 'p0', slug: 'zero', status: 'published', publishedAt: T0, contentHtml: '<p>long body</p>', textCounts: COUNTS }));
    await posts.insert(newPost({ id: 'p2', slug: 'two', status: 'published', publishedAt: LATER }));
    const site = new SiteRepo(sql);
    const first = await site.publishedSummariesAfter('b1', null, 2);
    expect(first.map((s) => [s.id, s.readingMinutes])).toEqual([
      ['p0', 1],
      ['p1', 1],
    ]);
    expect((await site.publishedSummariesAfter('b1', { publishedAt: T0, id: 'p1' }, 2)).map((s) => s.id)).toEqual(['p2']);
    expect(await site.publishedIdsAfter('b1', { publishedAt: T0, id: 'p0' }, 5)).toEqual([
      { id: 'p1', publishedAt: T0 },
      { id: 'p2', publishedAt: LATER },
    ]);
    expect(await site.publishedSummary('p2')).toMatchObject({ id: 'p2', slug: 'two', tags: [], publishedAt: LATER });
    const feed = await site.newestPublished('b1', 2, 12);
    expect(feed.map((p) => [p.id, p.contentHtml, p.contentMd])).toEqual([
      ['p2', '<h1>two</h1>', '# two'],
      ['p1', '<p>x</p>', 'x'],
    ]);
    expect((await site.newestPublished('b1', 3, 12))[2]).toMatchObject({ id: 'p0', contentHtml: '', contentMd: '' });
    // seeded() logged p1, then p0 and p2.
    expect([await site.oldestChange(), await site.latestChange()]).toEqual([1, 3]);
    expect(await site.changesSince('b1', 1)).toEqual([
      { seq: 2, postId: 'p0' },
      { seq: 3, postId: 'p2' },
    ]);
    await site.pruneChanges(3);
    expect([await site.oldestChange(), await site.latestChange()]).toEqual([3, 3]);
    await site.pruneChanges(4);
    expect([await site.oldestChange(), await site.latestChange()]).toEqual([null, 0]);
  });

  it('lists the redirects and aliases of published posts', async () => {
    const sql = await seeded();
    const posts = new PostsRepo(sql);
    await posts.insert(newPost({ id: 'd1', slug: 'draft' }));
    await posts.addRedirect('b1', 'old-first', 'p1', T0);
    await posts.addRedirect('b1', 'old-draft', 'd1', T0);
    await posts.setAliases('b1', 'p1', ['/2020/first'], T0);
    const site = new SiteRepo(sql);
    expect(await site.redirects('b1')).toEqual([
      { from: '/2020/first', to: 'first' },
      { from: 'old-first', to: 'first' },
    ]);
    expect((await site.redirectsOfPost('p1')).sort()).toEqual(['/2020/first', 'old-first']);
    expect(await site.redirectsOfPost('d1')).toEqual(['old-draft']);
  });
});
