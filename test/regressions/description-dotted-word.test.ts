/**
 * Regression (issue 11, item 6): a generated description dropped the words before a dotted word
 * in its first sentence: the post "Node.js 서버 성능 측정하는 법" was described as "js 서버 성능…",
 * because the sentence pattern could not match across "Node." and its scan restarted after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descriptionFromHtml, renderMarkdown } from '../../src/content/markdown.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const LONG_TAIL =
  ' 이 글은 요청 지연과 처리량을 재는 방법, 결과를 읽는 법, 흔한 실수를 차례로 다룹니다. 측정 도구로는 autocannon과 wrk를 씁니다. 마지막으로 결과를 비교합니다.';

describe('generated descriptions keep the words before a dotted word', () => {
  it('starts at the first word (Korean and English, versions and domains)', () => {
    const cases: [string, string][] = [
      [`Node.js 서버 성능 측정하는 법을 정리했습니다.${LONG_TAIL}`, 'Node.js 서버 성능 측정하는 법을 정리했습니다.'],
      [
        `We moved example.com to v1.2 of the engine today. ${'It took a while, and here is why. '.repeat(8)}`,
        'We moved example.com to v1.2 of the engine today.',
      ],
    ];
    for (const [markdown, first] of cases) {
      const description = descriptionFromHtml(renderMarkdown(markdown));
      expect(description.startsWith(first), description).toBe(true);
      expect(description.length).toBeLessThanOrEqual(160);
    }
  });

  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('is what the API returns as meta_description', async () => {
    const blogId = (await t.request('POST', '/v1/blogs', { body: { slug: 'perf', name: 'Perf' } })).body.id;
    const created = await t.request('POST', '/v1/posts', {
      blogId,
      body: { title: 'Node.js 서버 성능 측정하는 법', content: `Node.js 서버 성능 측정하는 법을 정리했습니다.${LONG_TAIL}` },
    });
    expect(created.status).toBe(201);
    const post = (await t.request('GET', `/v1/posts/${created.body.slug}`, { blogId })).body;
    expect(post.meta_description.startsWith('Node.js 서버 성능'), post.meta_description).toBe(true);
  });
});
