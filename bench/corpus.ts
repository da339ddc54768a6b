import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusPost {
  title: string;
  slug: string;
  /** YYYY-MM-DD */
  date: string;
  tags: string[];
  lang: 'ko' | 'en';
  body: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GENERATOR = join(ROOT, '..', 'shared', 'corpus', 'generate.mjs');

/** `bench/corpus/n<N>`, generated with the shared generator on first use. */
export function corpusDir(n: number): string {
  const dir = join(ROOT, 'bench', 'corpus', `n${n}`);
  if (!existsSync(join(dir, 'posts'))) {
    if (!existsSync(GENERATOR)) throw new Error(`corpus generator not found at ${GENERATOR}`);
    execFileSync(process.execPath, [GENERATOR, String(n), dir], { stdio: 'ignore' });
  }
  return dir;
}

/** The corpus's posts, sorted by file name. */
export function loadCorpus(n: number): CorpusPost[] {
  const dir = corpusDir(n);
  const files = readdirSync(join(dir, 'posts'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  return files.map((file) => parsePost(readFileSync(join(dir, 'posts', file), 'utf8')));
}

function parsePost(text: string): CorpusPost {
  const end = text.indexOf('\n---', 4);
  const front = text.slice(4, end);
  const body = text.slice(end + 4).replace(/^\n+/, '');
  const field = (name: string): string => new RegExp(`^${name}: (.*)$`, 'm').exec(front)?.[1]?.trim() ?? '';
  const rawTitle = field('title');
  return {
    title: rawTitle.startsWith('"') ? (JSON.parse(rawTitle) as string) : rawTitle,
    slug: field('slug'),
    date: field('date'),
    tags: field('tags')
      .replace(/^\[|\]$/g, '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    lang: field('lang') === 'ko' ? 'ko' : 'en',
    body,
  };
}
