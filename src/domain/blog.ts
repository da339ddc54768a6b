/** A blog as the rest of the code sees it; db/blogsRepo.ts maps it to and from its rows. */
import type { ThemeConfig } from './siteTypes.js';

export interface Blog {
  id: string;
  accountId: string;
  slug: string;
  name: string;
  description: string;
  themeConfig: ThemeConfig;
  /** Listed by the public discovery across blogs (GET /v1/discover); off until the owner opts in. */
  discoverable: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A blog with its custom domain, as the API presents it. */
export interface BlogWithDomain extends Blog {
  customDomain: string | null;
  domainActive: boolean;
}
