// `npm run bundle` (part of `npm run build`): the server as `npm start` and the Docker image run
// it. dist/src/main.js (what tsc emits) and everything it imports statically, ours and our
// dependencies', joined by rolldown into dist/server/main.js. Quiet unless something is wrong
// (rolldown's CLI prints a table of chunks at every `npm start`).
//
// Why: loading ~190 of our modules and the ~200 CommonJS files of Koa, the router, pino and
// prom-client one by one was most of a cold start (issue 12 item 5); one file parses and links
// in a fraction of that. What stays outside, loaded from node_modules when first used:
// - native addons (better-sqlite3 finds its .node file from its own folder);
// - whatever the code loads lazily on purpose (createRequire: ajv, markdown-it, highlight.js,
//   sanitize-html, lunr, sharp, the AWS SDK, node-cron, pg; dynamic import: the MCP SDK), which a
//   bundler does not follow;
// - worker threads, which start from their dist/src files (src/workers/compiledScript.ts).
// Nothing is renamed or minified (doc comments are dropped): stack traces keep our function names,
// and the source map leads back to dist/src. The CLI (bin/folio.js) runs dist/src unbundled: its
// start time matters less.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const inRoot = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

const EXTERNAL_PACKAGES = ['better-sqlite3', '@modelcontextprotocol/sdk'];
const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

function packageOf(id) {
  const parts = id.split('/');
  return id.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * JSON files (mime-db's 200 KB, twice, under Koa) as one string handed to JSON.parse, the way
 * Node's own require reads them: V8 scans a string literal far faster than it compiles the same
 * data as an object literal (10 ms of a cold start here).
 */
const jsonAsString = {
  name: 'json-as-string',
  load(id) {
    if (!id.endsWith('.json')) return null;
    const text = JSON.stringify(JSON.parse(readFileSync(id, 'utf8')));
    return { code: `module.exports = JSON.parse(${JSON.stringify(text)});`, moduleType: 'js' };
  },
};

const options = {
  input: inRoot('dist/src/main.js'),
  platform: 'node',
  plugins: [jsonAsString],
  external: (id) => builtins.has(id) || EXTERNAL_PACKAGES.includes(packageOf(id)),
  onLog(level, log, handler) {
    // depd 1.x (under http-assert) builds its deprecation wrappers with a direct eval; harmless
    // here because nothing is renamed or minified.
    if (log.code === 'EVAL' && log.id?.includes('/depd/')) return;
    handler(level, log);
  },
};

const output = {
  dir: inRoot('dist/server'),
  // Chunk names carry a hash: without this, every build would leave the last one's behind.
  cleanDir: true,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
  // Non-ASCII characters as \u escapes: V8 keeps a module's source for as long as it runs, and one
  // Korean or typographic character in it would store all 1.6 MB of this file two bytes a
  // character (3.2 MB of heap, measured in a heap snapshot of a resting server).
  charset: 'ascii',
  // Licence comments stay; doc comments go (a sixth of the bytes V8 would scan at each start).
  comments: { legal: true, annotation: false, jsdoc: false },
};

const bundle = await rolldown(options);
try {
  await bundle.write(output);
} finally {
  await bundle.close();
}
