import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthorizedError } from '../domain/errors.js';
import type { AppState } from './state.js';

export interface MetricsSource {
  render(): Promise<{ contentType: string; text: string }>;
}

/** Both sides hashed first, so the comparison takes the same time whatever the lengths. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * GET /metrics in Prometheus' text format. With FOLIO_METRICS_TOKEN set it answers only
 * `Authorization: Bearer <token>` (401 otherwise); without it anyone reaching the API port may
 * read it, which is why no series carries tenant data (src/metrics/metrics.ts).
 */
export function metricsEndpoint(metrics: MetricsSource, token: string | null): Middleware<AppState> {
  return async (ctx) => {
    if (token !== null) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      if (!match || !sameToken(match[1]!, token)) {
        throw new UnauthorizedError('GET /metrics needs "Authorization: Bearer <FOLIO_METRICS_TOKEN>"', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    const { contentType, text } = await metrics.render();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = text;
  };
}
