/**
 * A blog as rows, its full render, and changes carried out on it as the services would, with the
 * job payloads services/postDeps.ts records: what postChange.test.ts and postChangeBatch.test.ts
 * check the incremental renders against.
 */
import fc from 'fast-check';
import { FEED_SIZE, collectTags, indexOfPost, positionOf, sortOldestFirst } from '../../../src/publish/render/archive.js';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import type { SitePost } from '../../../src/domain/siteTypes.js';
import type { PostChangeInput } from '../../../src/publish/postChange.js';
import type { SiteObject } from '../../../src/storage/siteStore.js';
import { buildBlog, buildPost, defaultTheme } from './siteFixtures.js';

export const theme = defaultTheme();
export const blog = buildBlog();

export interface Row {
  post: SitePost;
  live: boolean;
  /** Old slugs that redirect to the post. */
  redirects: string[];
}

/** What services/postDeps.ts records in a post job. */
export interface Payload {
  wasLive?: boolean;
  previousSlug?: string;
  previousTags?: string[];
  previousPublishedAt?: string;
  removedRedirects?: string[];
}

export type Blog = Map<string, Row>;
export type Store = Map<string, { body: Buffer; contentType: string; cacheControl: string; redirectTo: string | null }>;

export const livePosts = (rows: Blog): SitePost[] => sortOldestFirst([...rows.values()].filter((row) => row.live).map((row) => row.post));

export function fullRender(rows: Blog): SiteObject[] {
  const redirects = [...rows.values()].filter((row) => row.live).flatMap((row) => row.redirects.map((from) => ({ from, to: row.post.slug })));
  return renderSite({ theme, blog, posts: livePosts(rows), redirects });
}

export function put(store: Store, objects: readonly SiteObject[]): Store {
  for (const o of objects)
    store.set(o.key, { body: Buffer.from(o.body), contentType: o.contentType, cacheControl: o.cacheControl, redirectTo: o.redirectTo ?? null });
  return store;
}

/** Publisher.renderChange's input for the change of `postId`, from the blog as it is after it. */
export function changeInput(rows: Blog, postId: string, payload: Payload): PostChangeInput {
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

/** Keys that are missing, extra or different in `store` against the full render of `rows`. */
export function differences(store: Store, rows: Blog): string[] {
  const expected = put(new Map(), fullRender(rows));
  const keys = new Set([...store.keys(), ...expected.keys()]);
  return [...keys].filter((key) => {
    const a = store.get(key);
    const b = expected.get(key);
    return !a || !b || !a.body.equals(b.body) || a.contentType !== b.contentType || a.cacheControl !== b.cacheControl || a.redirectTo !== b.redirectTo;
  });
}

export const DAY = 86_400_000;
export const at = (day: number): string => new Date(Date.UTC(2026, 0, 1) + day * DAY).toISOString();
export const TAGS = ['Go', 'go', 'rust', 'C++', 'notes', 'Intro', '서버'];

export function seed(count: number): Blog {
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

export type Change =
  | { kind: 'publish'; tags: string[] }
  | { kind: 'backdate'; day: number; tags: string[] }
  | { kind: 'title' | 'retag' | 'untag' | 'rename' | 'unpublish' | 'republish' | 'delete'; pick: number; tags: string[] };

/** Carries out `change` on `rows` (as the services would) and returns the post and the job's payload, or null when it does not apply. */
export function carryOut(rows: Blog, change: Change, step: number): { postId: string; payload: Payload } | null {
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

/** Any change of carryOut's: publishes (at the end or back-dated), edits, renames, removals. */
export const anyChange: fc.Arbitrary<Change> = (() => {
  const tags = fc.subarray(TAGS, { maxLength: 3 });
  return fc.oneof(
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
})();
