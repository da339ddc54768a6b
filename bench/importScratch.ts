import { loadCorpus } from './corpus.js';
import { importCorpus, importMore } from './importCorpus.js';
const corpus = loadCorpus(100_000);
const t = performance.now();
const blog = await importCorpus(corpus.slice(0, 1000), 'big');
process.stderr.write(`${JSON.stringify(blog)}\n`);
let at = 1000;
for (const size of [10_000, 50_000]) {
  await importMore(blog, corpus.slice(at, size), at);
  at = size;
  process.stderr.write(`${size} at ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
}
