/**
 * The warm-up after start-up compiles every route's schema, one step each, so that a route's
 * first caller does not wait for ajv; a schema compiled by a request is not compiled again.
 */
import { describe, expect, it } from 'vitest';
import { schemaWarmUpSteps } from '../../../src/http/middleware/validate.js';
import { startTestApp } from '../../support/testApp.js';

describe('schema warm-up', () => {
  it('offers a step per route schema not compiled yet, and none once they all are', async () => {
    const t = await startTestApp();
    try {
      // A request compiles its route's schemas itself: they are not offered again.
      const created = await t.request('POST', '/v1/blogs', { body: { slug: 'warm', name: 'Warm' } });
      expect(created.status).toBe(201);
      const steps = schemaWarmUpSteps();
      expect(steps.length).toBeGreaterThan(5);
      for (const step of steps) step();
      expect(schemaWarmUpSteps()).toEqual([]);
      // The compiled schemas are the ones requests use: a bad body still gets its field error.
      const bad = await t.request('POST', '/v1/posts', { body: { title: 7 }, headers: { 'x-blog-id': created.body.id } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('bad_request');
      expect(bad.body.details).toContainEqual({ field: 'title', message: 'must be string' });
    } finally {
      await t.close();
    }
  });
});
