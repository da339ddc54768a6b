/**
 * Publishing as the rest of Folio sees it: the job runner and its dispatch, the whole-blog
 * operations the CLI calls, the warm-up's interface, and one `idle()` for everything it runs in
 * the background. Built once by the composition root; each stage and pipeline below receives
 * only what it uses.
 */
import { isoNow } from '../lib/clock.js';
import type { PublishJob } from '../db/jobsRepo.js';
import { dispatchJob } from './jobs/dispatchJob.js';
import { JobRunner, MAX_BATCH, type BatchHandler, type JobHandler, type RunBeside } from './jobs/jobRunner.js';
import { ListingCache } from './listing/listingCache.js';
import { RenderSlots } from './parallel/renderSlots.js';
import { SiteDeletion } from './pipelines/deleteSite.js';
import { SiteCards } from './pipelines/drawSiteCards.js';
import { PostCards } from './pipelines/drawPostCards.js';
import { PostChangePipeline } from './pipelines/publishPostChange.js';
import { BlogReindex } from './pipelines/reindexBlog.js';
import { SiteRebuild, type RebuildOptions } from './pipelines/rebuildSite.js';
import { DiscoveryRefill } from './pipelines/indexDiscovery.js';
import { CdnSync } from './stages/cdnSync.js';
import { DomainEntries } from './stages/domainEntries.js';
import { FullSite, type VerifyReport } from './stages/fullSite.js';
import { PostChangeLoader } from './stages/loadPostChange.js';
import { SearchIndexes } from './stages/searchIndexes.js';
import { holdingBlogs } from './jobs/blogLeases.js';
import { inMemoryMarks } from './stages/staticSearchQueue.js';
import { WantedCards } from './stages/wantedCards.js';
import type { WriteResult } from './stages/writeSite.js';
import { createWarmablePublishing, type WarmablePublishing } from './warmablePublishing.js';
import type { PublishingDeps } from './publishingDeps.js';
import type { BlogWithDomain } from '../domain/blog.js';

/**
 * Whole-blog jobs that post changes run beside a full render may go ahead of: each remakes its
 * part (pages, cards, discovery entries) from the database as it is when it runs, so a change
 * that went first is in it all the same. A second `site` job queued behind a running one (a name
 * changed during an upgrade's re-render) would otherwise hold the blog's publishes for the whole
 * first render. Deletions keep their order.
 */
const REMADE_LATER: ReadonlySet<PublishJob['kind']> = new Set(['site', 'site_cards', 'discovery']);

/** Whole-blog work at once (full renders and reindexes): each already keeps the cores of a small VM busy. */
const WHOLE_BLOG_SLOTS = 2;

export interface Publishing extends WarmablePublishing {
  /** Runs recorded jobs now and retries them from the background tick. */
  runner: JobRunner;
  /** Carries out one job: `beforeJob`, then the pipeline of its kind. */
  handle: JobHandler;
  /** Carries out consecutive post jobs of one blog as one batch: `beforeJob`, then the post change pipeline. */
  handleBatch: BatchHandler['run'];
  /** Carries out post jobs between two chunks of their blog's full render: `beforeJob`, then the post change pipeline. */
  handleBeside: RunBeside;
  /** Re-renders every object of the blog; `force` uploads even objects whose hash matches. */
  rebuild(blog: BlogWithDomain, options?: RebuildOptions): Promise<WriteResult>;
  /** Compares the store with what the database says the blog should be. */
  verify(blog: BlogWithDomain): Promise<VerifyReport>;
  /** Rebuilds only the blog's search indexes from the database; returns how many posts they hold. */
  reindex(blog: BlogWithDomain): Promise<number>;
  /** Whole-blog work running and waiting for a slot. */
  wholeBlogWork(): { running: number; waiting: number };
  /** Resolves once the jobs started so far and the search upkeep they started are done. */
  idle(): Promise<void>;
  /** At start: lays out afresh, in the background, the static search indexes a stopped process left behind; returns how many. */
  resumeStaticSearch(): Promise<number>;
}

export function createPublishing(deps: PublishingDeps): Publishing {
  const { blogs, accounts, site, hashes, store, urls, theme, cache, logger } = deps;
  const listings = new ListingCache(site, {
    ...(deps.listingSnapshots ? { snapshots: deps.listingSnapshots } : {}),
    ...(deps.lazySummaries ? { lazy: deps.lazySummaries } : {}),
  });
  const slots = new RenderSlots(WHOLE_BLOG_SLOTS);
  const purge = new CdnSync({ cdn: deps.cdn, urls });
  const domains = new DomainEntries({ store, blogs });
  const marks = deps.staticSearchBehind ?? inMemoryMarks();
  const indexes = new SearchIndexes({
    site,
    urls,
    search: deps.search,
    discovery: deps.discovery,
    content: deps.content,
    staticSearch: deps.staticSearch,
    onBackgroundChange: (blog, changedKeys) => purge.changed(blog, { attempt: 1, changedKeys, allKeys: changedKeys }),
    ...(deps.leases ? { hold: holdingBlogs(deps.leases) } : {}),
    logger,
    blogExists: async (blogId) => (await blogs.findById(blogId)) !== null,
    staticBehind: marks,
  });
  const { cards } = deps;
  const socialCards = deps.socialCards ?? true;
  const load = new PostChangeLoader({ site, accounts, urls, theme, cache, listings, hashes, socialCards });
  const fullSite = new FullSite({ site, store, hashes, urls, theme, cache, listings, slots, cards, socialCards });

  const wanted = new WantedCards({ blogs, accounts, site, urls, socialCards });
  const reindex = new BlogReindex({ site, indexes, purge, slots, setAsideListing: (blogId) => listings.setAside(blogId, isoNow(deps.clock)) });
  // These two call each other: a post change that moves the whole blog rebuilds it, and a
  // rebuild runs again the post jobs recorded while it rendered.
  const postCards = new PostCards({
    store,
    hashes,
    cards,
    wanted,
    purge,
    logger: deps.logger,
    queueCards: (blog) => queueCards(blog),
    // The runner is built below; cards ask it only once a change has run.
    blogJobs: { busy: (blogId) => runner.busy(blogId), settled: (blogId) => runner.settled(blogId) },
  });
  const postChange: PostChangePipeline = new PostChangePipeline({
    blogs,
    site,
    load,
    store,
    hashes,
    purge,
    indexes,
    unpublishedChanges: (blogId) => deps.jobs.countPendingPostJobs(blogId),
    drawCardsSoon: (blog, drawings) => postCards.drawSoon(blog, drawings),
    rebuild: (blog) => rebuild.rebuild(blog),
  });
  const rebuild: SiteRebuild = new SiteRebuild({
    blogs,
    accounts,
    jobs: deps.jobs,
    fullSite,
    domains,
    purge,
    indexes,
    media: deps.media,
    store,
    runPostJobs: (jobs) => postChange.runBatch(jobs),
    // The runner is built below; a site job asks it only while it runs. A replaced job handler
    // without its own beside handler runs every job in its own turn.
    ...(deps.jobHandler && !deps.jobBesideHandler
      ? {}
      : { runBeside: (running: PublishJob) => runner.runBeside(running, deps.jobBesideHandler ?? handleBeside) }),
    reindex: (blog) => reindex.reindex(blog),
    // The render named the blog's cards again: a backlog of an earlier one may list old ones.
    queueCards: (blog) => {
      siteCards.forget(blog.id);
      return queueCards(blog);
    },
  });
  const discoveryRefill = new DiscoveryRefill({ blogs, indexes });
  // Run by the background tick, never at once: a rebuild's caller does not wait for the cards.
  const queueCards = async (blog: BlogWithDomain, running?: number): Promise<void> => {
    const open = await deps.jobs.listOpenForBlog(blog.id);
    const pending = open.some((job) => job.kind === 'site_cards' && job.status === 'pending' && job.id !== running);
    if (!pending) await deps.jobs.insert({ blogId: blog.id, blogSlug: blog.slug, kind: 'site_cards', payload: {}, now: isoNow(deps.clock) });
  };
  const siteCards = new SiteCards({ blogs, accounts, wanted, fullSite, purge, queueCards });
  const deletion = new SiteDeletion({ blogs, store, hashes, listings, domains, indexes, purge, logger });

  const dispatch = dispatchJob({
    postChange: (job) => postChange.run(job),
    site: (job) => rebuild.run(job),
    siteCards: (job) => siteCards.run(job),
    deleteSite: (job) => deletion.run(job),
    removeMedia: deps.removeMedia,
    discovery: (job) => discoveryRefill.run(job),
  });
  const handle: JobHandler = async (job) => {
    await deps.beforeJob?.();
    return dispatch(job);
  };
  const handleBatch: BatchHandler['run'] = async (jobs) => {
    await deps.beforeJob?.();
    await postChange.runBatch(jobs);
  };
  const handleBeside: RunBeside = async (jobs) => {
    await deps.beforeJob?.();
    return postChange.runBeside(jobs);
  };
  // Post changes queued behind a blog's running job fold into its next run (docs/publishing.md#coalesced-publishing).
  const runBatch = (deps.maxBatch ?? MAX_BATCH) > 1 ? (deps.jobHandler ? deps.jobBatchHandler : handleBatch) : undefined;
  const runner = new JobRunner({
    jobs: deps.jobs,
    handler: deps.jobHandler ?? handle,
    batch: runBatch
      ? {
          folds: (kind) => kind === 'post' || kind === 'post_removed',
          passes: (kind) => REMADE_LATER.has(kind),
          run: runBatch,
          max: deps.maxBatch ?? MAX_BATCH,
        }
      : undefined,
    clock: deps.clock,
    logger,
    metrics: deps.metrics,
    leases: deps.leases,
  });

  return {
    ...createWarmablePublishing({
      blogs,
      accounts,
      urls,
      theme,
      listings,
      load,
      indexes,
      publishedSinceStart: (blogId) => postChange.publishedSinceStart(blogId),
    }),
    runner,
    handle,
    handleBatch,
    handleBeside,
    rebuild: (blog, options) => rebuild.rebuild(blog, options),
    verify: (blog) => rebuild.verify(blog),
    reindex: (blog) => reindex.reindex(blog),
    wholeBlogWork: () => slots.stats(),
    resumeStaticSearch: async () => {
      let resumed = 0;
      for (const blogId of await marks.marked()) {
        const blog = await blogs.findById(blogId);
        // A blog deleted since: nothing to lay out, and its mark goes.
        if (!blog) await marks.set(blogId, false);
        else {
          indexes.resumeStatic(blog);
          resumed += 1;
        }
      }
      return resumed;
    },
    idle: async () => {
      await runner.idle();
      await postCards.idle();
      await indexes.idle();
    },
  };
}
