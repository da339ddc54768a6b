/**
 * A small, realistic blog for the renderer tests: an English post with code, a table, lists
 * and an image; a Korean post; a short first post. Bodies go through the real Markdown
 * pipeline so the pages hold what production would.
 */
import { templatesDir } from '../../../src/lib/paths.js';
import { renderMarkdown } from '../../../src/content/markdown.js';
import { loadTheme, type Theme } from '../../../src/publish/render/renderTheme.js';
import type { SiteBlog, SitePost } from '../../../src/domain/siteTypes.js';

export { templatesDir };

let theme: Theme | null = null;
/** The default theme, loaded once per test file. */
export function defaultTheme(): Theme {
  theme ??= loadTheme(templatesDir);
  return theme;
}

export function buildBlog(overrides: Partial<SiteBlog> = {}): SiteBlog {
  return {
    id: 'blog_01',
    slug: 'notes',
    name: 'Field Notes',
    description: 'Essays on building small, durable software.',
    baseUrl: 'https://notes.example.com',
    themeConfig: {},
    updatedAt: '2026-01-05T09:00:00.000Z',
    ...overrides,
  };
}

export function buildPost(overrides: Partial<SitePost> & { contentMd?: string } = {}): SitePost {
  const contentMd = overrides.contentMd ?? 'Some text.';
  return {
    id: 'post_00',
    slug: 'post',
    title: 'A post',
    contentHtml: renderMarkdown(contentMd),
    metaDescription: 'A post.',
    ogImageUrl: null,
    tags: [],
    publishedAt: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
    contentMd,
  };
}

const CACHING_MD = `Static pages are cheap to serve, but only if the cache in front of them is told the truth.
This post walks through the headers Folio sends and why.

## The two kinds of objects

| Object | Cache-Control | Why |
| --- | --- | --- |
| HTML, feeds | \`max-age=60, s-maxage=300\` | changes on every publish |
| \`assets/site.<hash>.css\` | \`max-age=31536000, immutable\` | the name changes with the content |

Three rules follow from that table:

1. Never put a hash-less asset behind a long TTL.
2. Let the CDN serve stale pages while it revalidates.
3. Purge nothing: names do the work.

- Short TTLs for pages
- Long TTLs for assets
  - including fonts

## Setting the headers

\`\`\`ts
const CACHE_CONTROL_ASSET = 'public, max-age=31536000, immutable';

export function headersFor(key: string): Record<string, string> {
  return { 'Cache-Control': key.includes('/assets/') ? CACHE_CONTROL_ASSET : 'public, max-age=60' };
}
\`\`\`

Checking them from a shell:

\`\`\`bash
curl -sI https://notes.example.com/ | grep -i cache-control
\`\`\`

![A request travelling from the browser through the CDN to the store](https://images.example.com/cdn-flow.png)

> A cache is a promise about the future. Make promises you can keep.

Read more in [RFC 9111](https://www.rfc-editor.org/rfc/rfc9111).
`;

const KOREAN_MD = `정적 사이트 생성기를 쓰면 서버 없이도 빠른 블로그를 운영할 수 있습니다.
이 글에서는 글을 발행할 때 어떤 파일이 만들어지는지 살펴봅니다.

## 발행하면 생기는 파일

- 글마다 \`index.html\` 한 개
- 첫 화면과 목록 페이지
- RSS 피드와 사이트맵

\`\`\`js
const 글 = { 제목: '안녕하세요', 태그: ['블로그'] };
\`\`\`

검색 색인도 함께 만들어지므로 \`블로그\`로 검색하면 '블로그를'만 들어 있는 글도 찾을 수 있습니다.
`;

const HELLO_MD = `Welcome to **Field Notes**. I write here about small tools that last.

Expect one post a month, give or take.
`;

export const helloPost = buildPost({
  id: 'post_01',
  slug: 'hello-world',
  title: 'Hello, world',
  contentMd: HELLO_MD,
  metaDescription: 'Welcome to Field Notes, a blog about small tools that last.',
  tags: ['meta'],
  publishedAt: '2026-01-10T08:30:00.000Z',
  createdAt: '2026-01-09T21:00:00.000Z',
  updatedAt: '2026-01-10T08:30:00.000Z',
});

export const cachingPost = buildPost({
  id: 'post_02',
  slug: 'caching-static-sites',
  title: 'Caching static sites at the edge',
  contentMd: CACHING_MD,
  metaDescription: 'Which Cache-Control headers a static blog needs, and why hashed asset names make purging unnecessary.',
  ogImageUrl: 'https://images.example.com/cdn-flow.png',
  tags: ['caching', 'Static Sites'],
  publishedAt: '2026-02-03T14:00:00.000Z',
  createdAt: '2026-02-01T10:00:00.000Z',
  updatedAt: '2026-02-05T16:20:00.000Z',
});

export const koreanPost = buildPost({
  id: 'post_03',
  slug: '정적-사이트-블로그',
  title: '정적 사이트 생성기로 블로그 만들기',
  contentMd: KOREAN_MD,
  metaDescription: '글을 발행하면 어떤 파일이 만들어지는지 정리했습니다.',
  tags: ['블로그', 'Static Sites'],
  publishedAt: '2026-03-24T10:00:00.000Z',
  createdAt: '2026-03-24T09:00:00.000Z',
  updatedAt: '2026-03-24T10:00:00.000Z',
});

export const fixturePosts: readonly SitePost[] = [helloPost, cachingPost, koreanPost];

/** `count` synthetic posts, one a day from 2025-01-01, oldest first. */
export function numberedPosts(count: number): SitePost[] {
  return Array.from({ length: count }, (_, index) => {
    const day = new Date(Date.UTC(2025, 0, 1) + index * 86_400_000).toISOString();
    return {
      id: `post_${String(index + 1).padStart(5, '0')}`,
      slug: `post-${index + 1}`,
      title: `Post number ${index + 1}`,
      contentHtml: `<p>Body of post ${index + 1}.</p>`,
      contentMd: `Body of post ${index + 1}.`,
      metaDescription: `Description of post ${index + 1}.`,
      ogImageUrl: null,
      tags: index % 2 === 0 ? ['even'] : ['odd'],
      publishedAt: day,
      createdAt: day,
      updatedAt: day,
    };
  });
}
