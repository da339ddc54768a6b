/** The full render moved to the page catalogue (publish/pages/fullRender.ts); its callers still import it from here. */
export { planSite, postNeighbours, renderSite, siteRenders, type SiteInput, type SitePlan, type SiteRedirect, type SiteRenders } from '../pages/fullRender.js';
