/** The feeds: rss.xml and feed.json (the newest posts with their bodies), and llms.txt. */
import { FEED_SIZE } from '../render/archive.js';
import { LLMS_POST_COUNT, renderJsonFeed, renderLlmsTxt, renderRss } from '../render/feeds.js';
import { onePage } from './pageType.js';

export const rssFeed = onePage('rss.xml', (site) => renderRss(site.ctx, site.newest.slice(0, FEED_SIZE)));

export const jsonFeed = onePage('feed.json', (site) => renderJsonFeed(site.ctx, site.newest.slice(0, FEED_SIZE)));

export const llmsTxt = onePage('llms.txt', (site) => renderLlmsTxt(site.ctx, site.posts.slice(-LLMS_POST_COUNT).reverse(), site.posts.length), {
  newest: LLMS_POST_COUNT,
});
