/** A post's Markdown twin as the renderer writes it (src/publish/render/renderPostTwin.ts). */
import { describe, expect, it } from 'vitest';
import { createRenderContext } from '../../../src/publish/render/renderContext.js';
import { renderPostTwin } from '../../../src/publish/render/renderPostTwin.js';
import { renderSite } from '../../../src/publish/pages/fullRender.js';
import { buildBlog, buildPost, defaultTheme, helloPost } from './siteFixtures.js';

const theme = defaultTheme();
const blog = buildBlog();

describe('renderPostTwin', () => {
  it('writes the title as a heading, the canonical URL, then the source with own images on the current origin', () => {
    const post = buildPost({
      slug: '정적-사이트',
      title: 'Static\n  sites',
      contentMd: '![cat](folio-media:cat.png)\n\nSee ![other](https://elsewhere.example/media/x.png).\n',
    });
    const twin = renderPostTwin(createRenderContext({ theme, blog }), post);
    expect(twin.key).toBe('notes/정적-사이트.md');
    expect(twin.contentType).toBe('text/markdown; charset=utf-8');
    expect(String(twin.body)).toBe(
      [
        '# Static sites',
        '',
        `Canonical: <${blog.baseUrl}/%EC%A0%95%EC%A0%81-%EC%82%AC%EC%9D%B4%ED%8A%B8>`,
        '',
        `![cat](${blog.baseUrl}/media/cat.png)`,
        '',
        'See ![other](https://elsewhere.example/media/x.png).',
        '',
      ].join('\n'),
    );
  });

  it('is one object of the full render per published post, beside its page', () => {
    const keys = renderSite({ theme, blog, posts: [helloPost] }).map((o) => o.key);
    expect(keys.indexOf('notes/hello-world.md')).toBe(keys.indexOf('notes/hello-world/index.html') + 1);
  });
});
