/**
 * The whole process: the core (compose/core.ts) and the HTTP app over it. main.ts and the tests
 * use this; a CLI command uses composeCore and never loads Koa.
 */
import { buildCore } from './core.js';
import type { ComposeOptions, Folio } from './folio.js';
import { composeHttp } from './http.js';

export type { ComposeOptions, Folio } from './folio.js';

export function compose(options: ComposeOptions): Folio {
  const { folio, searcher } = buildCore(options);
  return { ...folio, app: composeHttp(folio, searcher, options) };
}
