/**
 * The whole process: the core (compose/core.ts) and the HTTP app over it. main.ts and the tests
 * use this; a CLI command uses composeCore and never loads Koa.
 */
import { buildCore } from './core.js';
import type { ComposeOptions, Folio } from './folio.js';
import { composeHttp } from './http.js';

export type { ComposeOptions, Folio } from './folio.js';

export async function compose(options: ComposeOptions): Promise<Folio> {
  const { folio, searcher } = await buildCore(options);
  // Only a process that serves readers counts them; the CLI's composeCore starts no timer.
  folio.analytics.start();
  return { ...folio, ...composeHttp(folio, searcher, options) };
}
