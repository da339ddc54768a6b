import type { DomainsService } from '../../services/domains.js';
import { presentDomain, presentDomainRegistered } from '../presenters/domain.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { deletedSchema, timestamp } from './schemaParts.js';

export const registerDomainBody = {
  type: 'object',
  additionalProperties: false,
  required: ['hostname'],
  properties: { hostname: { type: 'string', minLength: 1, maxLength: 253, description: 'The hostname to serve the blog on, such as `blog.example.com`' } },
} as const;

const domainSchema = {
  type: 'object',
  required: ['hostname', 'status', 'cname_target'],
  properties: {
    hostname: { type: 'string' },
    status: { enum: ['pending_verification', 'active'] },
    cname_target: { type: 'string' },
    verification: {
      type: 'object',
      description: 'While pending: the TXT record proving control of the hostname (`name` TXT `value`, exactly)',
      properties: { type: { const: 'TXT' }, name: { type: 'string' }, value: { type: 'string' } },
    },
    expires_at: { ...timestamp, description: 'While pending: when the registration lapses unverified (ISO 8601 UTC with milliseconds)' },
    last_error: { type: ['string', 'null'], description: 'While pending: why the last check did not verify it' },
  },
} as const;

const registeredSchema = {
  ...domainSchema,
  properties: { ...domainSchema.properties, instructions: { type: 'string' } },
} as const;

export function domainRoutes({ domains }: { domains: DomainsService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/blogs/:id/domain',
      operationId: 'registerDomain',
      summary: 'Register a custom domain (Starter plan or higher)',
      description:
        "Serves the blog on your own hostname once DNS proves you control it: add the CNAME and TXT records of the answer; the domain activates when a check (this call's GET, or the periodic one) sees them. Needs the Starter plan or higher.",
      tag: 'domains',
      scope: 'domains:write',
      body: registerDomainBody,
      status: 201,
      response: registeredSchema,
      handler: async (ctx) => {
        const { hostname } = ctx.state.body as { hostname: string };
        const domain = await domains.register(authOf(ctx), ctx.params.id ?? '', hostname);
        ctx.status = 201;
        ctx.body = presentDomainRegistered(domain);
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/domain',
      operationId: 'getDomain',
      summary: "Get the blog's custom domain (checks DNS while it is pending; 404 once an unverified registration expired)",
      description: "The custom domain's status; while it is pending, each call checks DNS again and answers what is still missing.",
      tag: 'domains',
      scope: 'blogs:read',
      status: 200,
      response: domainSchema,
      handler: async (ctx) => {
        ctx.body = presentDomain(await domains.get(authOf(ctx), ctx.params.id ?? ''));
      },
    },
    {
      method: 'DELETE',
      path: '/blogs/:id/domain',
      operationId: 'removeDomain',
      summary: 'Remove the custom domain',
      description: 'The blog goes back to its service address; pages are rendered again with it.',
      tag: 'domains',
      scope: 'domains:write',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await domains.remove(authOf(ctx), ctx.params.id ?? '');
        ctx.body = { deleted: true };
      },
    },
  ];
}
