/**
 * `npm run bench`: prints one table of measured figures. Sections can be picked with
 * `--only api,api-read,postgres,nodes,publish,edits,burst,search,tenants,discover,push,static-search,hostile,media,cards,webhooks,analytics,dashboard,edge,backup,start,soak,soak-mixed,rerender` and the large corpus size with `--posts N`
 * (default 10,000); `--seconds N` also sets how long the `burst` writers run (default 60). `soak` (memory at rest and under
 * searches and publishes) runs `--soak-seconds N` (default 300) at `--soak-posts 10000,50000`; `soak-mixed` runs `--minutes N` (default 10; `--minutes 1` for a quick run). `edge` needs Debian's varnish and wrk. `--stores fs` leaves the publish
 * section's s3rver runs out (at 50,000 posts they upload the whole site first). `scale` runs only
 * when named (`--only scale`); `--max-posts N` stops its curve at N posts (default 100,000);
 * `--min-posts N` grows the blog through the smaller sizes without measuring them, and
 * `--scale-sizes 1000,10000,100000` measures only the sizes named (the others only grown through).
 * `push` pushes folders of `--push-posts 1000,10000` posts (the default; 10,000 take about five minutes).
 * `rerender` publishes while the `--posts` blog is rendered in full as after an upgrade, then
 * while it is rendered and reindexed as after an upgrade of the search text
 * (`FOLIO_BENCH_RERENDER_DATA=/dir` uses a data dir of one blog instead, 50,000 posts say).
 */
import { parseArgs } from 'node:util';
import { printTable, type BenchRow } from './table.js';
import { runApiBench } from './apiBench.js';
import { runApiReadBench } from './apiReadBench.js';
import { runPostgresBench } from './postgresBench.js';
import { runSeveralNodesBench } from './severalNodesBench.js';
import { runStartBench } from './startBench.js';
import { runPublishBench } from './publishBench.js';
import { runEditBench } from './editBench.js';
import { runSearchBench } from './searchBench.js';
import { runTenantsBench } from './tenantsBench.js';
import { runDiscoverBench } from './discoverBench.js';
import { runSyncBench } from './syncBench.js';
import { runBurstBench } from './burstBench.js';
import { runStaticSearchBench } from './staticSearchBench.js';
import { runHostileBench } from './hostileBench.js';
import { corpusDir, loadCorpus } from './corpus.js';
import { runBackupBench } from './backupBench.js';
import { runEdgeBench } from './edgeBench.js';
import { runCardsBench } from './cardsBench.js';
import { runMediaBench } from './mediaBench.js';
import { runWebhookBench } from './webhookBench.js';
import { runSoakBench } from './soakBench.js';
import { runRerenderBench } from './rerenderBench.js';
import { runMemorySoakBench } from './memorySoakBench.js';
import { runAnalyticsBench } from './analyticsBench.js';
import { runDashboardBench } from './dashboardBench.js';
import { runScaleBench, SCALE_SIZES } from './scaleBench.js';
import { importCorpus, removeImported, type ImportedBlog } from './importCorpus.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    posts: { type: 'string' },
    seconds: { type: 'string' },
    stores: { type: 'string' },
    minutes: { type: 'string' },
    'soak-seconds': { type: 'string' },
    'soak-posts': { type: 'string' },
    'max-posts': { type: 'string' },
    'min-posts': { type: 'string' },
    'scale-sizes': { type: 'string' },
    'push-posts': { type: 'string' },
  },
});
const only = new Set(
  (
    values.only ??
    'api,api-read,postgres,nodes,publish,edits,burst,search,tenants,discover,push,static-search,hostile,media,cards,webhooks,analytics,dashboard,edge,backup,start,soak,soak-mixed,rerender'
  )
    .split(',')
    .map((s) => s.trim()),
);
const seconds = Number(values.seconds ?? 10);

const rows: BenchRow[] = [];
const section = async (name: string, fn: () => Promise<BenchRow[]>): Promise<void> => {
  if (!only.has(name)) return;
  process.stderr.write(`bench: running ${name}…\n`);
  try {
    rows.push(...(await fn()));
  } catch (err) {
    rows.push({ area: name, measure: 'FAILED', value: err instanceof Error ? err.message.slice(0, 80) : String(err) });
  }
};

const posts = Number(values.posts ?? 10_000);

await section('api', () => runApiBench(seconds));
await section('api-read', () => runApiReadBench());
await section('postgres', () => runPostgresBench());
await section('nodes', () => runSeveralNodesBench());
// Rows land in `rows` as they are measured, so a later failure keeps the earlier figures.
await section('publish', async () => {
  await runPublishBench(posts, 100, rows, new Set((values.stores ?? 'fs,s3').split(',').map((s) => s.trim())));
  return [];
});
await section('edits', () => runEditBench(posts));
await section('burst', () => runBurstBench(posts, values.seconds ? seconds : 60));
await section('search', () => runSearchBench({ posts, corpusDir: corpusDir(posts) }));
await section('tenants', () => runTenantsBench({ blogs: 1000, postsPerBlog: 100, bigPosts: 50_000, corpusDir: corpusDir(50_000) }));
await section('discover', () => runDiscoverBench({ blogs: 1000, postsPerBlog: 100, corpusDir: corpusDir(10_000), corpusPosts: 10_000 }));
await section('push', async () => {
  const sizes = (values['push-posts'] ?? '1000,10000').split(',').map((n) => Number(n.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--push-posts takes whole post counts, comma-separated (got ${values['push-posts']})`);
  for (const size of sizes) rows.push(...(await runSyncBench(size)));
  return [];
});
await section('static-search', () => runStaticSearchBench({ posts, corpusDir: corpusDir(posts) }));
await section('hostile', () => runHostileBench());
await section('media', () => runMediaBench());
await section('cards', () => runCardsBench());
await section('webhooks', () => runWebhookBench());
await section('analytics', () => runAnalyticsBench());
await section('dashboard', () => runDashboardBench(posts));
await section('soak', () =>
  runMemorySoakBench({
    seconds: Number(values['soak-seconds'] ?? 300),
    sizes: (values['soak-posts'] ?? '10000,50000').split(',').map((s) => Number(s.trim())),
  }),
);
await section('soak-mixed', () => runSoakBench({ minutes: Number(values.minutes ?? 10) }));
await section('rerender', () => runRerenderBench(() => loadCorpus(posts)));
// Not in the default list: it imports up to 100,000 posts (see docs/performance.md).
await section('scale', async () => {
  const measured = values['scale-sizes']?.split(',').map(Number);
  const unknown = measured?.filter((size) => !(SCALE_SIZES as readonly number[]).includes(size));
  if (unknown?.length) throw new Error(`--scale-sizes takes sizes of ${SCALE_SIZES.join(', ')}, not ${values['scale-sizes']}`);
  await runScaleBench(
    { maxPosts: Number(values['max-posts'] ?? 100_000), minPosts: Number(values['min-posts'] ?? 0), ...(measured ? { measured } : {}) },
    rows,
  );
  return [];
});

// The edge, backup and start sections share one imported blog of `posts` posts.
let shared: ImportedBlog | null = null;
const sharedBlog = async (): Promise<ImportedBlog> => (shared ??= await importCorpus(loadCorpus(posts), 'edge'));
await section('edge', async () => runEdgeBench(await sharedBlog(), loadCorpus(posts)));
await section('backup', async () => runBackupBench(await sharedBlog(), posts));
await section('start', async () => runStartBench(await sharedBlog(), posts));
if (shared) removeImported(shared);

printTable(rows);
