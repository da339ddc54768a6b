/**
 * A post's change, rendered by renderPostChange and applied to a store that held the full render
 * of the blog before it, leaves exactly the full render of the blog after it: every object, byte
 * for byte, and nothing more. The inputs are built the way Publisher.renderChange builds them
 * from the database (publisher.ts), and the job payloads the way services/postDeps.ts records
 * them. A live post given another date is not among the changes: the publisher renders the
 * whole blog for it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FEED_SIZE, collectTags, indexOfPost, positionOf, sortOldestFirst } from '../../../src/publish/render/archive.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import type { SitePost } from '../../../src/domain/siteTypes.js';
import { renderPostChange, type PostChangeInput } from '../../../src/publish/postChange.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { buildBlog, buildPost, defaultTheme } from './siteFixtures.js';

const theme = defaultTheme();
const blog = buildBlog();

interface Row {
  post: SitePost;
  live: boolean;
  /** Old slugs that redirect to the post. */
  redirects: string[];
}

/** What services/postDeps.ts records in a post job. */
interface Payload {
  wasLive?: boolean;
  previousSlug?: string;
  previousTags?: string[];
  previousPublishedAt?: string;
  removedRedirects?: string[];
}

type Blog = Map<string, Row>;
type Store = Map<string, { body: Buffer; contentType: string; cacheControl: string; redirectTo: string | null }>;

const livePosts = (rows: Blog): SitePost[] => sortOldestFirst([...rows.values()].filter((row) => row.live).map((row) => row.post));

function fullRender(rows: Blog): SiteObject[] {
  const redirects = [...rows.values()].filter((row) => row.live).flatMap((row) => row.redirects.map((from) => ({ from, to: row.post.slug })));
  return renderSite({ theme, blog, posts: livePosts(rows), redirects });
}

function put(store: Store, objects: readonly SiteObject[]): Store {
  for (const o of objects)
    store.set(o.key, { body: Buffer.from(o.body), contentType: o.contentType, cacheControl: o.cacheControl, redirectTo: o.redirectTo ?? null });
  return store;
}

/** Publisher.renderChange's input for the change of `postId`, from the blog as it is after it. */
function changeInput(rows: Blog, postId: string, payload: Payload): PostChangeInput {
  const summaries = livePosts(rows);
  const groups = collectTags(summaries);
  const row = rows.get(postId);
  const live = row?.live ? row.post : null;
  const neighbours = new Map<string, SitePost>();
  if (live) {
    const index = indexOfPost(summaries, live);
    for (const neighbour of [summaries[index - 1], summaries[index + 1]]) if (neighbour) neighbours.set(neighbour.id, neighbour);
  } else if (payload.previousPublishedAt) {
    const after = positionOf(summaries, { id: postId, publishedAt: payload.previousPublishedAt });
    const around = after >= summaries.length ? [summaries[summaries.length - 1]] : [summaries[after - 1], summaries[after]];
    for (const neighbour of around) if (neighbour) neighbours.set(neighbour.id, neighbour);
  }
  return {
    ctx: createRenderContext({ theme, blog, posts: summaries }),
    summaries,
    tagged: (segment) => groups.find((group) => group.segment === segment)?.posts ?? [],
    tagGroups: () => groups,
    post: live,
    neighbours,
    newest: summaries.slice(-FEED_SIZE).reverse(),
    previousSlug: payload.previousSlug ?? (live ? undefined : row?.post.slug),
    previousTags: [...(payload.previousTags ?? []), ...(row && !live ? row.post.tags : [])],
    tagsChanged: payload.previousTags !== undefined,
    wasLive: payload.wasLive,
    previousPublishedAt: payload.previousPublishedAt,
    postId,
    redirectsToPost: live ? row!.redirects : [],
    removedRedirects: [...(payload.removedRedirects ?? []), ...(row && !live ? row.redirects : [])],
  };
}

/** Applies a change the way writeSite does: every object written, then the deletions but any key written. */
function applyChange(store: Store, rows: Blog, postId: string, payload: Payload): void {
  const { objects, deletions } = renderPostChange(changeInput(rows, postId, payload));
  put(store, objects);
  const written = new Set(objects.map((o) => o.key));
  for (const key of deletions) if (!written.has(key)) store.delete(key);
}

/** Keys that are missing, extra or different in `store` against the full render of `rows`. */
function differences(store: Store, rows: Blog): string[] {
  const expected = put(new Map(), fullRender(rows));
  const keys = new Set([...store.keys(), ...expected.keys()]);
  return [...keys].filter((key) => {
    const a = store.get(key);
    const b = expected.get(key);
    return !a || !b || !a.body.equals(b.body) || a.contentType !== b.contentType || a.cacheControl !== b.cacheControl || a.redirectTo !== b.redirectTo;
  });
}

const DAY = 86_400_000;
const at = (day: number): string => new Date(Date.UTC(2026, 0, 1) + day * DAY).toISOString();
const TAGS = ['Go', 'go', 'rust', 'C++', 'notes', 'Intro', '서버'];

function seed(count: number): Blog {
  const rows: Blog = new Map();
  for (let i = 0; i < count; i++) {
    const id = `post_${String(i).padStart(3, '0')}`;
    const post = buildPost({
      id,
      slug: `post-${i}`,
      title: `Post ${i} on small tools`,
      tags: [TAGS[i % TAGS.length]!, ...(i % 2 === 0 ? ['notes'] : [])],
      publishedAt: at(i * 3),
      createdAt: at(i * 3),
      updatedAt: at(i * 3),
    });
    rows.set(id, { post, live: true, redirects: [] });
  }
  return rows;
}

type Change =
  | { kind: 'publish'; tags: string[] }
  | { kind: 'backdate'; day: number; tags: string[] }
  | { kind: 'title' | 'retag' | 'untag' | 'rename' | 'unpublish' | 'republish' | 'delete'; pick: number; tags: string[] };

/** Carries out `change` on `rows` (as the services would) and returns the post and the job's payload, or null when it does not apply. */
function carryOut(rows: Blog, change: Change, step: number): { postId: string; payload: Payload } | null {
  const now = at(400 + step);
  if (change.kind === 'publish' || change.kind === 'backdate') {
    const id = `new_${String(step).padStart(3, '0')}`;
    const publishedAt = change.kind === 'publish' ? now : at(change.day);
    rows.set(id, {
      post: buildPost({ id, slug: `new-${step}`, title: `New post ${step} on tools`, tags: change.tags, publishedAt, createdAt: now, updatedAt: now }),
      live: true,
      redirects: [],
    });
    return { postId: id, payload: { wasLive: false } };
  }
  const candidates = [...rows.values()].filter((row) => (change.kind === 'republish' ? !row.live : row.live));
  const row = candidates[change.pick % Math.max(1, candidates.length)];
  if (!row) return null;
  const before = row.post;
  const postId = before.id;
  switch (change.kind) {
    case 'title':
      row.post = { ...before, title: `${before.title}, revised`, updatedAt: now };
      return { postId, payload: { wasLive: true } };
    case 'retag':
    case 'untag': {
      const tags = change.kind === 'retag' ? change.tags : before.tags.filter((tag) => !change.tags.includes(tag));
      row.post = { ...before, tags, updatedAt: now };
      return { postId, payload: { wasLive: true, ...(before.tags.join('\n') !== tags.join('\n') ? { previousTags: before.tags } : {}) } };
    }
    case 'rename':
      row.post = { ...before, slug: `renamed-${step}`, updatedAt: now };
      row.redirects.push(before.slug);
      return { postId, payload: { wasLive: true, previousSlug: before.slug } };
    case 'unpublish':
      row.live = false;
      return { postId, payload: { previousSlug: before.slug, previousTags: before.tags, previousPublishedAt: before.publishedAt } };
    case 'republish':
      row.live = true;
      row.post = { ...before, updatedAt: now };
      return { postId, payload: { wasLive: false } };
    case 'delete':
      rows.delete(postId);
      return {
        postId,
        payload: { previousSlug: before.slug, previousTags: before.tags, previousPublishedAt: before.publishedAt, removedRedirects: row.redirects },
      };
  }
}

function runChanges(rows: Blog, changes: readonly Change[]): void {
  const store = put(new Map(), fullRender(rows));
  changes.forEach((change, step) => {
    const done = carryOut(rows, change, step);
    if (!done) return;
    applyChange(store, rows, done.postId, done.payload);
    expect(differences(store, rows).join(' '), `after ${change.kind} (step ${step})`).toEqual('');
  });
}

describe('renderPostChange against the full render', () => {
  it('leaves the full render after a publish, an edit, a retag, a rename, a backdated publish, an unpublish, a republish and a delete', () => {
    runChanges(seed(39), [
      { kind: 'publish', tags: ['rust', 'notes'] },
      { kind: 'title', pick: 7, tags: [] },
      { kind: 'retag', pick: 12, tags: ['Go', 'fresh'] },
      { kind: 'rename', pick: 3, tags: [] },
      { kind: 'backdate', day: 10, tags: ['C++'] },
      { kind: 'unpublish', pick: 0, tags: [] },
      { kind: 'republish', pick: 0, tags: [] },
      { kind: 'unpublish', pick: 40, tags: [] },
      { kind: 'delete', pick: 3, tags: [] },
    ]);
  });

  it('writes with every change the objects no post changes, so a store that lost them is mended', () => {
    const rows = seed(5);
    const unchanging = fullRender(rows).filter(
      (o) => o.key.startsWith('notes/assets/') || ['notes/search/index.html', 'notes/404.html', 'notes/robots.txt'].includes(o.key),
    );
    expect(unchanging.length).toBeGreaterThan(3);
    const done = carryOut(rows, { kind: 'title', pick: 1, tags: [] }, 0)!;
    const { objects } = renderPostChange(changeInput(rows, done.postId, done.payload));
    for (const object of unchanging)
      expect(
        objects.find((o) => o.key === object.key),
        object.key,
      ).toEqual(object);
  });

  it('holds for any run of changes', () => {
    const tags = fc.subarray(TAGS, { maxLength: 3 });
    const change: fc.Arbitrary<Change> = fc.oneof(
      fc.record({ kind: fc.constant('publish' as const), tags }),
      fc.record({ kind: fc.constant('backdate' as const), day: fc.integer({ min: 0, max: 130 }), tags }),
      fc.record({
        kind: fc.constantFrom(
          'title' as const,
          'retag' as const,
          'untag' as const,
          'rename' as const,
          'unpublish' as const,
          'republish' as const,
          'delete' as const,
        ),
        pick: fc.nat(60),
        tags,
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 45 }), fc.array(change, { minLength: 1, maxLength: 6 }), (count, changes) => runChanges(seed(count), changes)),
      { numRuns: 30 },
    );
  });

  // A live post that joins a tag grows the tag's list, so the tag's archive pages after it shift
  // by one (here a second page appears) and are rendered again.
  it('a live post that joins a tag re-renders the tag archive pages it shifts', () => {
    runChanges(seed(35), [{ kind: 'retag', pick: 3, tags: ['notes'] }]);
  });
});
