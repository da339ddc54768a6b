import { NotFoundError } from '../../domain/errors.js';
import type { HostBlog } from '../../services/siteHosts.js';
import type { RouteDef } from '../routeDef.js';

/** Requests per minute one client address may make to GET /v1/tls/allowed (docs/cdn.md, "HTTPS on one VM"). */
export const TLS_ASK_LIMIT = { requests: 600, windowMs: 60_000 } as const;

const allowedQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['domain'],
  properties: { domain: { type: 'string', minLength: 1, maxLength: 253, description: 'The host name a TLS client asked for (SNI), without a port' } },
} as const;

/**
 * Caddy's on-demand TLS asks here before it obtains a certificate (deploy/caddy/Caddyfile): only
 * hosts Folio serves get one, so a stranger's SNI cannot make the server request certificates
 * for names it does not own. No key (Caddy has none), one indexed lookup, limited per address.
 */
export function tlsRoutes({ blogForHost }: { blogForHost: (host: string) => Promise<HostBlog> }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/tls/allowed',
      operationId: 'tlsAllowed',
      summary: 'Whether a TLS terminator may obtain a certificate for a host',
      description:
        "The ask of on-demand TLS (Caddy's `on_demand_tls { ask … }`): answers 200 only for hosts Folio serves — a blog's `<slug>.<service domain>` or an active custom domain — and 404 for any other host. Needs no key; limited per client address (600 a minute, with the usual X-RateLimit headers and 429).",
      tag: 'tls',
      rateLimit: 'address',
      query: allowedQuery,
      status: 200,
      response: { type: 'object', required: ['domain', 'allowed'], properties: { domain: { type: 'string' }, allowed: { const: true } } },
      handler: async (ctx) => {
        const domain = (ctx.state.query as { domain: string }).domain.toLowerCase().replace(/\.$/, '');
        if (typeof (await blogForHost(domain)) !== 'string') throw new NotFoundError(`${domain} is neither a blog of this Folio nor an active custom domain`);
        ctx.body = { domain, allowed: true };
      },
    },
  ];
}
