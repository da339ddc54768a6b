/** The preview part of the composition root: the editor's live preview and preview links (issue #30). */
import { PreviewLinksRepo } from '../db/previewLinksRepo.js';
import { templatesDir } from '../lib/paths.js';
import { lazyTheme } from '../publish/render/renderTheme.js';
import { LivePreview } from '../services/livePreview.js';
import { PreviewFrame } from '../services/previewFrame.js';
import { PreviewLinks } from '../services/previewLinks.js';
import type { FolioCore } from './folio.js';

export interface Previews {
  live: LivePreview;
  links: PreviewLinks;
  frame: PreviewFrame;
}

export function composePreviews(core: FolioCore): Previews {
  const { sql, repos, urls, clock, config, content } = core;
  // Their own lazy copy of the shipped theme (the same files publishing reads): loaded on the
  // first preview only, and it keeps publishing's wiring out of the HTTP part.
  const theme = lazyTheme(templatesDir);
  return {
    live: new LivePreview({ content, urls }),
    links: new PreviewLinks({
      sql,
      links: new PreviewLinksRepo(sql),
      posts: repos.posts,
      blogs: repos.blogs,
      accounts: repos.accounts,
      urls,
      theme,
      clock,
      socialCards: config.socialCards,
    }),
    frame: new PreviewFrame({ blogs: repos.blogs, accounts: repos.accounts, urls, theme, clock, socialCards: config.socialCards }),
  };
}
