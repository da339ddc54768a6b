/**
 * The `scale` section's requests against a bench server: a timed publish of a fresh draft, a
 * timed search, and the wait for a blog's publishing queue to empty. One place, so the
 * one-size-at-a-time run and the interleaved one (scaleInterleaved.ts) time the same thing.
 */
import type { CorpusPost } from './corpus.js';
import type { ImportedBlog } from './importCorpus.js';
import type { BenchServer } from './serverProcess.js';

export const SEARCH_QUERIES = 200;

export async function call(server: BenchServer, blog: ImportedBlog, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${blog.apiKey}`, 'x-blog-id': blog.blogId, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

/** Queries of one or two title words of the first posts: the same queries at every size. */
export function queriesOf(posts: readonly CorpusPost[]): string[] {
  const words = posts
    .slice(0, 1_000)
    .flatMap((post) => post.title.split(/[\s,.:;!?'"()]+/))
    .filter((word) => word.length >= 4);
  const queries: string[] = [];
  for (let i = 0; queries.length < SEARCH_QUERIES && words.length > 0; i++) {
    const first = words[(i * 7919) % words.length]!;
    queries.push(i % 3 === 2 ? `${first} ${words[(i * 104_729) % words.length]!}` : first);
  }
  return queries;
}

/** Creates a draft, then times its `POST …/publish` alone (ms). */
export async function timedPublish(server: BenchServer, blog: ImportedBlog, title: string): Promise<number> {
  const draft = await call(server, blog, 'POST', '/v1/posts', {
    title,
    content: `# Benchmark\n\n${'A paragraph of benchmark text with several words. '.repeat(120)}`,
    tags: ['performance', 'search'],
  });
  if (draft.status !== 201) throw new Error(`create answered ${draft.status}`);
  const started = performance.now();
  const published = await call(server, blog, 'POST', `/v1/posts/${draft.json.slug}/publish`);
  const ms = performance.now() - started;
  if (published.status !== 200) throw new Error(`publish answered ${published.status}`);
  return ms;
}

/** One `GET /v1/search` of the blog (ms). */
export async function timedSearch(server: BenchServer, blog: ImportedBlog, query: string): Promise<number> {
  const started = performance.now();
  const res = await call(server, blog, 'GET', `/v1/search?q=${encodeURIComponent(query)}&per_page=20`);
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return ms;
}

/** Waits until the blog has no publishing job left, so the work of one turn does not run into the next. */
export async function queueEmpty(server: BenchServer, blog: ImportedBlog): Promise<void> {
  for (;;) {
    const status = await call(server, blog, 'GET', `/v1/blogs/${blog.blogId}/publishing`);
    if (status.status === 200 && status.json.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
