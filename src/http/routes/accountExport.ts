import { Readable } from 'node:stream';
import { ForbiddenError } from '../../domain/errors.js';
import { grantOf, hasScope } from '../../services/authContext.js';
import type { AccountExporter } from '../../services/accountExport.js';
import { exportDocumentSchema } from '../../services/exportFormat.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';

export function accountExportRoutes({ exporter }: { exporter: AccountExporter }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/account/export',
      operationId: 'exportAccount',
      summary:
        'Every blog of the account with its posts (Markdown and fields), tags, theme and media list, as one JSON document (streamed); `folio import` reads it',
      description:
        'Streams one JSON document with every blog of the account, its posts (Markdown and fields), tags, theme and media list. Needs an account key with blogs:read and posts:read. `folio import` reads it.',
      tag: 'account',
      scope: 'blogs:read',
      status: 200,
      response: exportDocumentSchema,
      handler: (ctx) => {
        const auth = authOf(ctx);
        if (grantOf(auth).blogId !== null) throw new ForbiddenError('the account export needs an account key; this key is bound to one blog');
        if (!hasScope(grantOf(auth), 'posts:read')) throw new ForbiddenError('the account export needs the posts:read scope as well as blogs:read');
        ctx.type = 'application/json; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="folio-export-${new Date().toISOString().slice(0, 10)}.json"`);
        ctx.body = Readable.from(exporter.stream(auth.account.id));
      },
    },
  ];
}
