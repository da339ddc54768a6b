/**
 * `--only edits`: what an author's edit of a published post costs against publishing a draft, in
 * a blog of `posts` posts (issue #31: "PUT of a published post within 1.2× the p95 of publishing
 * a draft"). Each round times, one after the other on the same server: publishing a new draft,
 * a `PUT` of an older published post's title (it is listed on archive, tag and month pages and
 * its neighbours' pages link it), and publishing that post again unchanged (it writes nothing).
 * Interleaved, so the three see the same machine; the load average is reported with them. The
 * drafts carry corpus posts' text, so both sides index a post of real vocabulary.
 */
import { loadavg } from 'node:os';
import { loadCorpus } from './corpus.js';
import { importCorpus, removeImported, type ImportedBlog } from './importCorpus.js';
import { startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function call(baseUrl: string, blog: ImportedBlog, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${blog.apiKey}`, 'x-blog-id': blog.blogId, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - started };
}

function expectStatus(what: string, res: { status: number; json: any }, status: number): void {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.json).slice(0, 200)}`);
}

export async function runEditBench(posts: number, samples = 60): Promise<BenchRow[]> {
  const corpus = loadCorpus(posts);
  const blog = await importCorpus(corpus, 'edits');
  // Cards off: with them on, the first start queues drawing 10,000 cards (site_cards jobs, tens of
  // minutes here), which the wait below would sit through; a card is drawn after the answer anyway.
  const env = { FOLIO_DATA_DIR: blog.dataDir, FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn', FOLIO_SOCIAL_CARDS: 'off' };
  try {
    const server = await startBenchServer(env);
    try {
      // The first start of an imported data dir renders the whole blog: wait for it.
      for (;;) {
        const status = await call(server.baseUrl, blog, 'GET', `/v1/blogs/${blog.blogId}/publishing`);
        if (status.status === 200 && status.json.pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const publishes: number[] = [];
      const edits: number[] = [];
      const republishes: number[] = [];
      // Posts spread over the blog's history, none of the newest (whose pages a publish touches anyway).
      const targets = Array.from({ length: samples }, (_, i) => corpus[Math.floor(((i + 0.5) / samples) * corpus.length * 0.9)]!.slug);
      for (let i = 0; i < samples + 3; i += 1) {
        const round = i - 3; // three rounds of warm-up, not counted
        // A corpus post's text and tags: the publish bench's draft repeats one sentence, whose
        // handful of words made its search index update far cheaper than a real post's.
        const source = corpus[(i * 7919) % corpus.length]!;
        const draft = await call(server.baseUrl, blog, 'POST', '/v1/posts', {
          title: `${source.title} (draft ${i})`,
          content: source.body,
          tags: source.tags.slice(0, 10),
        });
        expectStatus('create', draft, 201);
        const published = await call(server.baseUrl, blog, 'POST', `/v1/posts/${draft.json.slug}/publish`);
        expectStatus('publish', published, 200);
        const slug = targets[Math.max(0, round)]!;
        const edited = await call(server.baseUrl, blog, 'PUT', `/v1/posts/${slug}`, { title: `Edited title ${i} of ${slug}` });
        expectStatus('put', edited, 200);
        const again = await call(server.baseUrl, blog, 'POST', `/v1/posts/${slug}/publish`);
        expectStatus('re-publish', again, 200);
        if (round < 0) continue;
        publishes.push(published.ms);
        edits.push(edited.ms);
        republishes.push(again.ms);
      }
      const load = loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
      const p = (values: number[]) => `${percentile(values, 50).toFixed(0)} / ${percentile(values, 95).toFixed(0)} ms`;
      const ratio = percentile(edits, 95) / percentile(publishes, 95);
      return [
        { area: 'edits', measure: `publish a draft p50 / p95, ${posts} posts, fs, cards off (${samples} rounds, load average ${load})`, value: p(publishes) },
        { area: 'edits', measure: `PUT of a published post's title p50 / p95, ${posts} posts, fs`, value: p(edits) },
        { area: 'edits', measure: 'PUT of a published title p95 ÷ publish a draft p95', value: `${ratio.toFixed(2)}×`, target: '≤ 1.2×' },
        { area: 'edits', measure: `publish an unchanged published post p50 / p95, ${posts} posts, fs`, value: p(republishes) },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    removeImported(blog);
  }
}
