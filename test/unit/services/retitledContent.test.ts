/**
 * A title-only edit keeps the stored HTML and counts only the titles again
 * (services/postDerive.ts retitledContent): its counts must be what deriving the whole post gives.
 */
import { describe, expect, it } from 'vitest';
import { derivePostContent } from '../../../src/content/postContent.js';
import type { Post } from '../../../src/domain/post.js';
import { retitledContent } from '../../../src/services/postDerive.js';

function stored(title: string, contentMd: string): Post {
  const content = derivePostContent({ title, contentMd });
  return {
    id: 'p',
    blogId: 'b',
    title,
    slug: 'p',
    contentMd,
    contentHtml: content.contentHtml,
    metaDescription: content.description,
    metaExplicit: false,
    ogImageUrl: null,
    tags: [],
    status: 'published',
    publishedAt: '2026-01-01T00:00:00.000Z',
    scheduledAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    textCounts: content.textCounts,
  };
}

describe('retitledContent', () => {
  const cases: [string, string, string][] = [
    ['Hello world', 'Some *Markdown* with `code` and https://example.com/ links.', '안녕하세요 세계'],
    ['useEffect를 쓰면', '한국어 본문입니다. English words too.\n\n```js\nconst x = 1;\n```', 'Plain English now'],
    ['', 'x', 'Three word title'],
    ['Déjà vu 123', '', '日本語 title'],
  ];
  it.each(cases)('counts as a whole derive does: %s → %s', (oldTitle, contentMd, newTitle) => {
    const retitled = retitledContent(stored(oldTitle, contentMd), newTitle)!;
    const whole = derivePostContent({ title: newTitle, contentMd });
    expect(retitled.textCounts).toEqual(whole.textCounts);
    expect(retitled.contentHtml).toBe(whole.contentHtml);
  });

  it('leaves a row stored without counts to a whole derive', () => {
    expect(retitledContent({ ...stored('a', 'b'), textCounts: null }, 'c')).toBeNull();
  });
});
