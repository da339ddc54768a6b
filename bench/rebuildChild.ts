/**
 * Child process of the rebuild benchmark: one full rebuild (pages and feeds, not the search
 * index) of a blog into the folder store, printing wall time and peak RSS as JSON. With
 * `--with-search` it then builds the blog's search index from the database, timed apart.
 */
import '../src/runtime/threadPool.js';
import { boundHeapGrowth } from '../src/runtime/heapGrowth.js';
import { compose } from '../src/compose/compose.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/lib/logger.js';

const [dataDir, slug] = process.argv.slice(2);
// As `folio site rebuild` and `folio search reindex` do (src/cli/siteCommands.ts).
boundHeapGrowth();
// FOLIO_SOCIAL_CARDS from the caller: the scale section renders as its server will run (cards off).
const cards = process.env.FOLIO_SOCIAL_CARDS ? { FOLIO_SOCIAL_CARDS: process.env.FOLIO_SOCIAL_CARDS } : {};
const folio = await compose({ config: loadConfig({ FOLIO_DATA_DIR: dataDir, ...cards }), logger: createLogger('warn') });
const blog = (await folio.repos.blogs.findBySlug(slug!))!;
const started = performance.now();
const result = await folio.publisher.rebuild(blog, { force: true });
const ms = performance.now() - started;
const maxRssMb = process.resourceUsage().maxRSS / 1024;
// Then the search index of the whole blog, as `folio search reindex` builds it (timed apart),
// so the publish figures that follow include updating a full-size index, as in production.
let reindexMs: number | null = null;
// The process's high-water mark once the reindex has run too: the reindex's own peak when it
// is above the rebuild's.
let maxRssWithReindexMb: number | null = null;
if (process.argv.includes('--with-search')) {
  const reindexStarted = performance.now();
  await folio.publisher.reindex(blog);
  reindexMs = performance.now() - reindexStarted;
  maxRssWithReindexMb = process.resourceUsage().maxRSS / 1024;
  // As `folio site rebuild` does: the server's next start then sees the render as its own and
  // does not re-render the blog in the background (#31 item 4).
  await folio.recordRenderedByCommand(blog.id, { pages: true });
}
await folio.close();
process.stdout.write(JSON.stringify({ ms, objects: result.written, maxRssMb, reindexMs, maxRssWithReindexMb }));
