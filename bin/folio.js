#!/usr/bin/env node
// Thin launcher so the `folio` bin works from a checkout: the TypeScript is compiled to dist/
// by `npm install` (the prepare script) and `npm start`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/src/cliMain.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('folio: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
await import(cli);
