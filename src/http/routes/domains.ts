import type { DomainsService } from '../../services/domains.js';
import { presentDomain, presentDomainRegistered } from '../presenters/domain.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { deletedSchema } from './schemaParts.js';

export const registerDomainBody = {
  type: 'object',
  additionalProperties: false,
  required: ['hostname'],
  properties: { hostname: { type: 'string', minLength: 1, maxLength: 253 } },
} as const;

const domainSchema = {
  type: 'object',
  properties: {
    hostname: { type: 'string' },
    status: { enum: ['pending_verification', 'active'] },
    cname_target: { type: 'string' },
    instructions: { type: 'string' },
  },
} as const;

export function domainRoutes({ domains }: { domains: DomainsService }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/blogs/:id/domain',
      summary: 'Register a custom domain (Starter plan or higher)',
      tag: 'domains',
      scope: 'domains:write',
      body: registerDomainBody,
      status: 201,
      response: domainSchema,
      handler: (ctx) => {
        const { hostname } = ctx.state.body as { hostname: string };
        ctx.status = 201;
        ctx.body = presentDomainRegistered(domains.register(authOf(ctx), ctx.params.id ?? '', hostname));
      },
    },
    {
      method: 'GET',
      path: '/blogs/:id/domain',
      summary: "Get the blog's custom domain (checks DNS while it is pending)",
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
      summary: 'Remove the custom domain',
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
