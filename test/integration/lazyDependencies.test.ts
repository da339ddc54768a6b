/**
 * What the configuration does not use is not loaded: a server on the folder store without a
 * CloudFront purger never loads the AWS SDKs (a fifth of a second each), sharp/libvips load
 * with the warm-up once the server listens or on the first upload, highlight.js grammars when a code block names their language, and the
 * Markdown pipeline, the JSON body parser, ajv and node-cron only when first used, the MCP SDK
 * and the API client with the first /mcp request. Checked in a fresh Node process, where nothing
 * else loaded them.
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

const script = (env: Record<string, string>) => `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (name) => seen.add(name));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
const { compose } = await import('./dist/src/compose/compose.js');
const { loadConfig } = await import('./dist/src/config/config.js');
const { createLogger } = await import('./dist/src/lib/logger.js');
const folio = await compose({ config: loadConfig(${JSON.stringify(env)}), logger: createLogger('silent') });
// CommonJS loads (createRequire) are not seen by the hook: they are in require.cache.
for (const key of Object.keys(createRequire(import.meta.url).cache)) {
  const name = key.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1];
  if (name) seen.add(name);
  // highlight.js grammars (one file each) count as 'highlight.js/languages'.
  if (/highlight\\.js\\/lib\\/languages\\//.test(key)) seen.add('highlight.js/languages');
}
await new Promise((resolve) => setTimeout(resolve, 100));
await folio.close();
port1.close();
console.log(JSON.stringify([...seen]));
`;

function loadedAtStart(env: Record<string, string>): string[] {
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(env)], { cwd: process.cwd() }).toString()) as string[];
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
