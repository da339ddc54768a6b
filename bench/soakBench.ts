/**
 * `npm run bench -- --only soak-mixed [--minutes N]`: mixed load on 20 blogs of one real server (its
 * own process, dist/server/main.js) for ten minutes by default, and the event loop's worst delay
 * in every minute, read from the server's own monitor (prom-client's
 * nodejs_eventloop_lag_max_seconds through GET /metrics, which resets it on every read), with its
 * resident memory every 30 s (issue 27, item 29).
 *
 * The load, from a few clients that each wait a little between requests (a soak, not a
 * saturation test; the machine is shared): site pages on the blogs' hosts, post reads and lists,
 * searches, draft writes, publishes and edits of published posts (render, search indexes,
 * static index, CDN jobs), image uploads, and from time to time two account exports at once.
 * Before the soak, the seeded server is restarted and the worst delay of its first seconds is
 * read, as a reader's first requests meet it.
 *
 * `FOLIO_BENCH_CPU_PROF=<dir>` runs the server with `--cpu-prof` into that directory; read the
 * profile with `node dist/bench/harness/longTasks.js <file>` (the stretches the loop was held).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { loadCorpus, type CorpusPost } from './corpus.js';
import { visit } from './harness/visit.js';
import { createBenchAccount, startBenchServer, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';

const BLOGS = 20;
const SEED_POSTS = 12;
const CLIENTS = 6;
/** A client's pause between requests. */
const THINK_MS = 40;
const SAMPLE_MS = 30_000;
const EXPORT_EVERY_MS = 45_000;
const TARGET_MS = 100;

/** What the server's own series say (GET /metrics), read every sample. */
interface ServerSample {
  /** Worst event-loop delay since the previous read (the read resets it), ms. */
  delay: number;
  /** CPU the process used so far, all threads, s. */
  cpu: number;
  /** Time in major (mark-compact) garbage collections so far, ms. */
  majorGc: number;
  heapUsed: number;
}

async function serverSample(baseUrl: string): Promise<ServerSample> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const value = (re: RegExp): number => {
    const match = re.exec(text);
    if (!match) throw new Error(`GET /metrics has no ${re.source}`);
    return Number(match[1]);
  };
  return {
    delay: value(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m) * 1000,
    cpu: value(/^process_cpu_seconds_total(?:\{[^}]*\})? ([0-9.e+-]+)$/m),
    majorGc:
      (/^nodejs_gc_duration_seconds_sum\{[^}]*kind="major"[^}]*\} ([0-9.e+-]+)$/m.exec(text)
        ? value(/^nodejs_gc_duration_seconds_sum\{[^}]*kind="major"[^}]*\} ([0-9.e+-]+)$/m)
        : 0) * 1000,
    heapUsed: value(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+-]+)$/m),
  };
}

const loopMax = async (baseUrl: string): Promise<number> => (await serverSample(baseUrl)).delay;

/**
 * The anchor: an idle Node process beside the server, measuring its own worst timer delay the
 * same way (monitorEventLoopDelay, 10 ms resolution), printed and reset when asked. Idle, its
 * delay is only the machine's: how long a runnable process waits for a core. On a shared VM that
 * is a floor under every figure of the server.
 */
class IdleAnchor {
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string) => void)[] = [];

  constructor() {
    const script = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
      process.stdin.on('data', () => { process.stdout.write((h.max / 1e6).toFixed(1) + '\\n'); h.reset(); });`;
    this.child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buffered = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        const wake = this.waiting.shift();
        if (wake) wake(line);
        else this.lines.push(line);
      }
    });
  }

  /** Its worst delay since the previous read, ms. */
  read(): Promise<number> {
    const answer = new Promise<string>((resolve) => {
      const line = this.lines.shift();
      if (line !== undefined) resolve(line);
      else this.waiting.push(resolve);
    });
    this.child.stdin!.write('\n');
    return answer.then(Number);
  }

  stop(): void {
    this.child.kill();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');

interface Blog {
  id: string;
  slug: string;
  posts: string[];
}

class Api {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  async call(
    method: string,
    path: string,
    options: { blogId?: string; body?: unknown; raw?: Uint8Array; type?: string } = {},
  ): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (options.blogId) headers['x-blog-id'] = options.blogId;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.raw) {
      body = new Uint8Array(options.raw);
      headers['content-type'] = options.type ?? 'application/octet-stream';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed };
  }
}

/** Photo-like PNGs of a few sizes, made once. */
async function images(): Promise<Buffer[]> {
  return Promise.all(
    [
      [640, 480],
      [1200, 800],
      [320, 320],
    ].map(([width, height], i) =>
      sharp({
        create: { width: width!, height: height!, channels: 3, background: { r: 40 * i, g: 120, b: 200 }, noise: { type: 'gaussian', mean: 128, sigma: 20 } },
      })
        .png()
        .toBuffer(),
    ),
  );
}

function postBody(post: CorpusPost, status: 'draft' | 'published', slug: string): Record<string, unknown> {
  return { title: post.title, slug, content: post.body, tags: post.tags.slice(0, 3), status };
}

async function seed(api: Api, corpus: CorpusPost[]): Promise<Blog[]> {
  const blogs: Blog[] = [];
  for (let b = 0; b < BLOGS; b++) {
    const slug = `soak-${b}`;
    const res = await api.call('POST', '/v1/blogs', { body: { slug, name: `Soak ${b}` } });
    if (res.status !== 201) throw new Error(`POST /v1/blogs answered ${res.status}`);
    blogs.push({ id: res.body.id as string, slug, posts: [] });
  }
  // Four at a time: seeding is not what is measured.
  const jobs = blogs.flatMap((blog, b) => Array.from({ length: SEED_POSTS }, (_, i) => ({ blog, post: corpus[(b * SEED_POSTS + i) % corpus.length]!, i })));
  for (let k = 0; k < jobs.length; k += 4) {
    await Promise.all(
      jobs.slice(k, k + 4).map(async ({ blog, post, i }) => {
        const slug = `seed-${i}`;
        const res = await api.call('POST', '/v1/posts', { blogId: blog.id, body: postBody(post, 'published', slug) });
        if (res.status !== 201) throw new Error(`seeding a post answered ${res.status}`);
        blog.posts.push(slug);
      }),
    );
  }
  return blogs;
}

/** What the clients did, per kind of request. */
class Tally {
  readonly counts = new Map<string, { n: number; failed: Map<string, number> }>();
  /** `status` of a failed request: its HTTP status, or what went wrong. */
  add(kind: string, ok: boolean, status: number | string = ''): void {
    const entry = this.counts.get(kind) ?? { n: 0, failed: new Map<string, number>() };
    entry.n++;
    if (!ok) entry.failed.set(String(status), (entry.failed.get(String(status)) ?? 0) + 1);
    this.counts.set(kind, entry);
  }
}

/** One client: picks a request by weight, sends it, waits THINK_MS, until `until`. */
async function client(api: Api, blogs: Blog[], corpus: CorpusPost[], photos: Buffer[], until: number, tally: Tally, id: number): Promise<void> {
  let state = id;
  const rand = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const port = new URL(api.baseUrl).port;
  let made = 0;
  while (Date.now() < until) {
    const blog = pick(blogs);
    const r = rand();
    try {
      if (r < 0.3) {
        const path = pick(['/', `/${pick(blog.posts)}`, '/archive/', '/tags/', '/rss.xml', '/search/meta.json']);
        const res = await visit(api.baseUrl, `${blog.slug}.localhost:${port}`, path);
        tally.add('site page', res.status < 400, res.status);
      } else if (r < 0.5) {
        const res = await api.call('GET', `/v1/posts/${encodeURIComponent(pick(blog.posts))}`, { blogId: blog.id });
        tally.add('post read', res.status === 200, res.status);
      } else if (r < 0.57) {
        const res = await api.call('GET', '/v1/posts?per_page=50', { blogId: blog.id });
        tally.add('post list', res.status === 200, res.status);
      } else if (r < 0.72) {
        const words = pick(corpus)
          .title.split(/\s+/)
          .slice(0, 1 + Math.floor(rand() * 2));
        const res = await api.call('GET', `/v1/search?q=${encodeURIComponent(words.join(' '))}`, { blogId: blog.id });
        tally.add('search', res.status === 200, res.status);
      } else if (r < 0.8) {
        const slug = `draft-${id}-${made++}`;
        const res = await api.call('POST', '/v1/posts', { blogId: blog.id, body: postBody(pick(corpus), 'draft', slug) });
        tally.add('draft write', res.status === 201, res.status);
      } else if (r < 0.88) {
        const slug = `new-${id}-${made++}`;
        const res = await api.call('POST', '/v1/posts', { blogId: blog.id, body: postBody(pick(corpus), 'published', slug) });
        if (res.status === 201) blog.posts.push(slug);
        tally.add('publish', res.status === 201, res.status);
      } else if (r < 0.95) {
        const post = pick(corpus);
        const res = await api.call('PUT', `/v1/posts/${encodeURIComponent(pick(blog.posts))}`, { blogId: blog.id, body: { content: post.body } });
        tally.add('edit published', res.status === 200, res.status);
      } else {
        const res = await api.call('POST', '/v1/media', { blogId: blog.id, raw: pick(photos), type: 'image/png' });
        tally.add('image upload', res.status === 201 || res.status === 200, res.status);
      }
    } catch {
      tally.add('connection error', false, 'error');
    }
    await sleep(THINK_MS);
  }
}

export async function runSoakBench(opts: { minutes: number; corpusPosts?: number }): Promise<BenchRow[]> {
  const area = 'soak';
  const rows: BenchRow[] = [];
  const corpus = loadCorpus(opts.corpusPosts ?? 1000);
  const photos = await images();
  const cpuProf = process.env.FOLIO_BENCH_CPU_PROF;
  const env = { FOLIO_RATE_LIMITS: 'off', FOLIO_LOG_LEVEL: 'warn' };
  let server: BenchServer = await startBenchServer(env);
  const anchor = new IdleAnchor();
  try {
    const key = createBenchAccount(server.dataDir);
    const blogs = await seed(new Api(server.baseUrl, key), corpus);
    // The seeded install restarted, as after an upgrade: the first seconds of a server with data.
    const port = Number(new URL(server.baseUrl).port);
    await server.stop();
    const startedAt = performance.now();
    server = await startBenchServer({ ...env, FOLIO_DATA_DIR: server.dataDir }, port, cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []);
    const upAfter = performance.now() - startedAt;
    const untilUp = await loopMax(server.baseUrl);
    await sleep(Math.max(0, 1500 - (performance.now() - startedAt)));
    const firstSeconds = await loopMax(server.baseUrl);
    rows.push({ area, measure: `start of the seeded server: spawn → /healthz answered`, value: `${upAfter.toFixed(0)} ms` });
    rows.push({
      area,
      measure: 'worst event-loop delay until the first answer / in the 1.5 s after start',
      value: `${untilUp.toFixed(0)} / ${firstSeconds.toFixed(0)} ms`,
      target: `≤ ${TARGET_MS} ms`,
    });

    const api = new Api(server.baseUrl, key);
    const tally = new Tally();
    const durationMs = opts.minutes * 60_000;
    const began = Date.now();
    const until = began + durationMs;
    const loadAtStart = load();
    await loopMax(server.baseUrl);
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(api, blogs, corpus, photos, until, tally, i + 1));
    // Two account exports at once, every EXPORT_EVERY_MS (the account holds all 20 blogs).
    const exports = (async () => {
      while (Date.now() + EXPORT_EVERY_MS / 3 < until) {
        const results = await Promise.all([0, 1].map(() => api.call('GET', '/v1/account/export')));
        for (const res of results) tally.add('account export', res.status === 200, res.status);
        await sleep(EXPORT_EVERY_MS);
      }
    })();
    const samples: (ServerSample & { at: number; rss: number; anchor: number })[] = [];
    const before = await serverSample(server.baseUrl);
    await anchor.read();
    while (Date.now() < until) {
      await sleep(Math.min(SAMPLE_MS, until - Date.now()));
      samples.push({ at: Date.now() - began, ...(await serverSample(server.baseUrl)), rss: await server.rss(), anchor: await anchor.read() });
    }
    await Promise.all([...clients, exports]);
    const loadAtEnd = load();

    const minutes = Math.ceil(durationMs / 60_000);
    // A sample closes the 30 s before it; one taken a moment after a minute's end belongs to that minute.
    const minuteOf = (at: number): number => Math.min(minutes - 1, Math.max(0, Math.floor((at - 1000) / 60_000)));
    const perMinute = Array.from({ length: minutes }, (_, m) => {
      const inMinute = samples.filter((s) => minuteOf(s.at) === m);
      const last = inMinute[inMinute.length - 1];
      const previous = samples.filter((s) => minuteOf(s.at) < m).pop() ?? before;
      return {
        delay: Math.max(0, ...inMinute.map((s) => s.delay)),
        anchor: Math.max(0, ...inMinute.map((s) => s.anchor)),
        cpu: last ? last.cpu - previous.cpu : 0,
        gc: last ? last.majorGc - previous.majorGc : 0,
      };
    });
    for (const [m, { delay, anchor: idle, cpu, gc }] of perMinute.entries()) {
      rows.push({
        area,
        measure: `minute ${m + 1}: worst event-loop delay [idle process beside it] (server CPU, all threads; major GC)`,
        value: `${delay.toFixed(0)} ms [${idle.toFixed(0)} ms] (${cpu.toFixed(1)} s; ${gc.toFixed(0)} ms)`,
        target: `≤ ${TARGET_MS} ms`,
      });
    }
    const over = perMinute.filter((d) => d.delay > TARGET_MS).length;
    rows.push({ area, measure: 'minutes over the target', value: `${over} of ${minutes}`, target: '0' });
    for (const s of samples) {
      const seconds = Math.round(s.at / 1000);
      const at = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
      rows.push({ area, measure: `RSS (JS heap used) at ${at}`, value: `${(s.rss / 1e6).toFixed(0)} MB (${(s.heapUsed / 1e6).toFixed(0)} MB)` });
    }
    const requests = [...tally.counts]
      .map(([kind, { n, failed }]) => `${kind} ${n}${failed.size ? ` (failed: ${[...failed].map(([status, k]) => `${k}× ${status}`).join(', ')})` : ''}`)
      .join(', ');
    rows.push({ area, measure: `requests (${CLIENTS} clients, ${THINK_MS} ms pause, ${BLOGS} blogs)`, value: requests });
    rows.push({ area, measure: 'load average at start / end (1, 5, 15 min)', value: `${loadAtStart}; ${loadAtEnd}` });
    return rows;
  } finally {
    anchor.stop();
    await server.stop();
    if (process.env.FOLIO_BENCH_KEEP !== '1') rmSync(server.dataDir, { recursive: true, force: true });
  }
}
