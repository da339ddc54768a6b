/**
 * The warm-up after start-up compiles every route's schema, one step each, so that a route's
 * first caller does not wait for ajv; a schema compiled already (by a request, or by another
 * test file in this worker: vitest does not isolate files here) is not offered again.
 */
import { describe, expect, it } from 'vitest';
import { schemaWarmUpSteps, validate } from '../../../src/http/middleware/validate.js';
import { startTestApp } from '../../support/testApp.js';

describe('schema warm-up', () => {
  it('offers a step for each declared schema not compiled yet, and none once they are', () => {
    const before = schemaWarmUpSteps().length;
    // Declared as a route declares its body; not compiled until a request or a warm-up step.
    validate('body', { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false });
    validate('query', { type: 'object', properties: { page: { type: 'string' } }, additionalProperties: false });
    const steps = schemaWarmUpSteps();
    expect(steps).toHaveLength(before + 2);
    for (const step of steps) step();
    expect(schemaWarmUpSteps()).toEqual([]);
  });

  it('leaves requests validated as before once the app’s schemas are compiled by the warm-up', async () => {
    const t = await startTestApp();
    try {
      for (const step of schemaWarmUpSteps()) step();
      const created = await t.request('POST', '/v1/blogs', { body: { slug: 'warm', name: 'Warm' } });
      expect(created.status).toBe(201);
      const bad = await t.request('POST', '/v1/posts', { body: { title: 7 }, headers: { 'x-blog-id': created.body.id } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('bad_request');
      expect(bad.body.details).toContainEqual({ field: 'title', message: 'must be string' });
    } finally {
      await t.close();
    }
  });
});
