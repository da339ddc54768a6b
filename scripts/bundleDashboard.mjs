// `npm run bundle` (part of `npm run build`): the dashboard's browser code and styles, from web/,
// into dist/dashboard/assets/ under names that carry a hash of their content, so the server can
// answer them with `Cache-Control: immutable` (a new build is a new name). dist/dashboard/
// manifest.json maps each source name (`editor.js`, `dashboard.css`) to its built file; the
// server reads it at start (src/http/dashboard/assets.ts).
//
// Every file in web/dashboard/pages/ is one page's entry; code they share goes to chunks the
// browser loads with them. Minified: the budgets are bytes (docs/dashboard.md).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const inRoot = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const out = inRoot('dist/dashboard');
const pages = inRoot('web/dashboard/pages');
const styles = inRoot('web/dashboard/styles');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const input = Object.fromEntries(
  readdirSync(pages)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => [basename(name, '.ts'), join(pages, name)]),
);
const manifest = {};
const bundle = await rolldown({ input, platform: 'browser' });
try {
  const { output } = await bundle.write({
    dir: join(out, 'assets'),
    format: 'esm',
    entryFileNames: '[name]-[hash].js',
    chunkFileNames: '[name]-[hash].js',
    minify: true,
    comments: { legal: true, annotation: false, jsdoc: false },
  });
  for (const chunk of output) {
    if (chunk.type === 'chunk' && chunk.isEntry) manifest[`${chunk.name}.js`] = `assets/${chunk.fileName}`;
  }
} finally {
  await bundle.close();
}

for (const name of readdirSync(styles).filter((n) => n.endsWith('.css'))) {
  const text = readFileSync(join(styles, name));
  const hash = createHash('sha256').update(text).digest('base64url').slice(0, 10);
  const file = `${basename(name, '.css')}-${hash}${extname(name)}`;
  writeFileSync(join(out, 'assets', file), text);
  manifest[name] = `assets/${file}`;
}
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
