/** Which pipeline carries out each kind of publish job (db/jobsRepo.ts lists the kinds). */
import type { PublishJob } from '../../db/jobsRepo.js';
import type { JobHandler } from './jobRunner.js';

export interface JobPipelines {
  /** `post` and `post_removed`: pipelines/publishPostChange.ts. */
  postChange: JobHandler;
  /** `site`: pipelines/rebuildSite.ts. */
  site: JobHandler;
  /** `site_cards`: pipelines/drawSiteCards.ts. */
  siteCards: JobHandler;
  /** `site_delete`: pipelines/deleteSite.ts. */
  deleteSite: JobHandler;
  /** `media_delete`: not publishing, composed beside it (services/mediaRemoval.ts). */
  removeMedia: JobHandler;
  /** `discovery`: pipelines/indexDiscovery.ts. */
  discovery: JobHandler;
}

export function dispatchJob(pipelines: JobPipelines): JobHandler {
  return async (job: PublishJob): Promise<void> => {
    switch (job.kind) {
      case 'post':
      case 'post_removed':
        return pipelines.postChange(job);
      case 'site':
        return pipelines.site(job);
      case 'site_cards':
        return pipelines.siteCards(job);
      case 'site_delete':
        return pipelines.deleteSite(job);
      case 'media_delete':
        return pipelines.removeMedia(job);
      case 'discovery':
        return pipelines.discovery(job);
    }
  };
}
