/**
 * The `discovery` job, recorded when a blog's owner opts in or out of discovery (PUT /blogs/:id
 * `discoverable`): the blog's entries in the cross-blog index made afresh from its published
 * posts, or removed. Readers never wait for it to see an opt-out, which the query itself applies.
 */
import type { BlogsRepo } from '../../db/blogsRepo.js';
import type { PublishJob } from '../../db/jobsRepo.js';
import type { SearchIndexes } from '../stages/searchIndexes.js';

export interface DiscoveryRefillDeps {
  blogs: Pick<BlogsRepo, 'findById'>;
  indexes: Pick<SearchIndexes, 'refillDiscovery'>;
}

export class DiscoveryRefill {
  constructor(private readonly deps: DiscoveryRefillDeps) {}

  async run(job: PublishJob): Promise<void> {
    const blog = await this.deps.blogs.findById(job.blogId);
    // Deleted since: its site_delete job removes the entries.
    if (!blog) return;
    await this.deps.indexes.refillDiscovery(blog);
  }
}
