/**
 * The prose counts stored with each post (migration 005) that page language and reading time
 * are rendered from: they must follow every write of the title or the Markdown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPostText } from '../../src/domain/language.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { visit } from '../../bench/harness/visit.js';

describe('stored text counts', () => {
  let t: TestApp;
  let blogId: string;
  beforeAll(async () => {
    t = await startTestApp();
    blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'counts', name: 'Counts' } })).body.id;
  });
  afterAll(async () => t.close());

  const stored = async (slug: string): Promise<unknown> => {
    const row = (await t.folio.sql.get<{ text_counts: string }>('SELECT text_counts FROM posts WHERE slug = ?', [slug]))!;
    return JSON.parse(row.text_counts);
  };

  it('are written with the post and follow edits of the title and the content', async () => {
    const created = await t.request('POST', '/v1/posts', { blogId, body: { title: 'Plain English title', content: 'A few words here.' } });
    expect(await stored(created.body.slug)).toEqual(countPostText({ title: 'Plain English title', contentMd: 'A few words here.' }));
    await t.request('PUT', `/v1/posts/${created.body.slug}`, { blogId, body: { title: '한국어 제목', content: '서버를 배포했습니다. 블로그에 글을 씁니다.' } });
    expect(await stored(created.body.slug)).toEqual(countPostText({ title: '한국어 제목', contentMd: '서버를 배포했습니다. 블로그에 글을 씁니다.' }));
    await t.request('POST', `/v1/posts/${created.body.slug}/publish`, { blogId });
    const page = await visit(t.baseUrl, 'counts.localhost:3000', `/${encodeURIComponent(created.body.slug)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="ko"');
  });
});
