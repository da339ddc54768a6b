/**
 * What the configuration does not use is not loaded: a server on the folder store without a
 * CloudFront purger never loads the AWS SDKs (a fifth of a second each), sharp/libvips load
 * with the warm-up once the server listens or on the first upload, highlight.js grammars when a code block names their language, and the
 * Markdown pipeline, the JSON body parser, ajv and node-cron only when first used, the MCP SDK
 * and the API client with the first /mcp request. The `folio` command loads a command's modules
 * when it runs: its help, and commands that only talk to the HTTP API (push, pull), load no
 * database, renderer or image library. Checked in a fresh Node process, where nothing else
 * loaded them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Packages an ESM import resolves, reported by a loader hook (it runs on its own thread). */
const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const name = result.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1];
  if (name) port.postMessage(name);
  return result;
}`;

/** A fresh process that runs `body` with the loader hook on, then prints the packages it loaded. */
const probe = (body: string) => `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (name) => seen.add(name));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
${body}
// CommonJS loads (createRequire) are not seen by the hook: they are in require.cache.
for (const key of Object.keys(createRequire(import.meta.url).cache)) {
  const name = key.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1];
  if (name) seen.add(name);
  // highlight.js grammars (one file each) count as 'highlight.js/languages'.
  if (/highlight\\.js\\/lib\\/languages\\//.test(key)) seen.add('highlight.js/languages');
}
await new Promise((resolve) => setTimeout(resolve, 100));
await globalThis.afterProbe?.();
port1.close();
console.log(JSON.stringify([...seen]));
`;

function loadedBy(body: string): string[] {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe(body)], { cwd: process.cwd() }).toString();
  return JSON.parse(out.slice(out.lastIndexOf('\n[') + 1)) as string[];
}

function loadedAtStart(env: Record<string, string>): string[] {
  return loadedBy(`
const { compose } = await import('./dist/src/compose/compose.js');
const { loadConfig } = await import('./dist/src/config/config.js');
const { createLogger } = await import('./dist/src/lib/logger.js');
const folio = await compose({ config: loadConfig(${JSON.stringify(env)}), logger: createLogger('silent') });
globalThis.afterProbe = () => folio.close();
`);
}

/** What \`folio <args>\` loads, run in process (its output goes to this probe's stdout first). */
function loadedByCli(args: string[], env: Record<string, string>): string[] {
  return loadedBy(`
const { runCli } = await import('./dist/src/cli/runCli.js');
globalThis.cliExit = await runCli(${JSON.stringify(args)}, { env: ${JSON.stringify(env)} });
`);
}

describe('dependencies the configuration does not use', () => {
  it('are not loaded by a server on the folder store', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-lazy-'));
    try {
      const modules = loadedAtStart({ FOLIO_DATA_DIR: dir });
      expect(modules).not.toContain('@aws-sdk/client-s3');
      expect(modules).not.toContain('@aws-sdk/client-cloudfront');
      expect(modules).not.toContain('sharp');
      // No highlight.js grammar until a code block names its language; the Markdown pipeline and
      // the JSON body parser on first use (or the warm-up once the server listens).
      expect(modules).not.toContain('highlight.js/languages');
      // Nor the highlight.js core until the first code block.
      expect(modules).not.toContain('highlight.js');
      for (const lazy of ['ajv', 'markdown-it', 'sanitize-html', 'koa-bodyparser', 'node-cron', '@modelcontextprotocol/sdk', 'openapi-fetch', 'zod'])
        expect(modules).not.toContain(lazy);
      // The probe works: what the server does use is seen.
      expect(modules).toContain('better-sqlite3');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are not loaded by the command line for help, or for the commands that only talk to the API', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-lazy-'));
    try {
      const heavy = ['better-sqlite3', 'sharp', 'markdown-it', 'eta', 'lunr', '@aws-sdk/client-s3', 'koa'];
      for (const args of [['--help'], ['push', '--help'], ['account', 'list', '--help']]) {
        const modules = loadedByCli(args, { FOLIO_DATA_DIR: dir });
        for (const name of heavy) expect(modules, args.join(' ')).not.toContain(name);
      }
      // A push with no server to talk to fails on the connection, having loaded no server module.
      const pushing = loadedByCli(['push', dir, '--blog', 'nope'], { FOLIO_DATA_DIR: dir, FOLIO_API_URL: 'http://127.0.0.1:9', FOLIO_API_KEY: 'pk_x' });
      for (const name of heavy) expect(pushing, 'push').not.toContain(name);
      // The probe works: a command on the data dir loads the database.
      expect(loadedByCli(['account', 'list'], { FOLIO_DATA_DIR: dir })).toContain('better-sqlite3');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are loaded when the configuration names them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-lazy-'));
    try {
      const modules = loadedAtStart({
        FOLIO_DATA_DIR: dir,
        FOLIO_STORAGE: 's3',
        FOLIO_S3_BUCKET: 'b',
        FOLIO_S3_ENDPOINT: 'http://127.0.0.1:9',
        FOLIO_CDN: 'cloudfront',
        FOLIO_CLOUDFRONT_DISTRIBUTION_ID: 'E123',
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'y',
      });
      expect(modules).toContain('@aws-sdk/client-s3');
      expect(modules).toContain('@aws-sdk/client-cloudfront');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
