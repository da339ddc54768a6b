/**
 * The anchor of the `scale` section's rebuild: Hugo (Debian's `hugo`) building the same posts
 * as a minimal site. Each corpus post becomes `content/posts/<slug>.md` with its title, date,
 * slug and tags as front matter; the site has no theme, only two tiny layouts: `single.html`
 * (the post: title, date, tags, content) and `list.html` (home, sections, tag pages: a page of
 * 20 titles with pagination), plus Hugo's own RSS and sitemap. Hugo renders the Markdown itself,
 * where Folio's rebuild reuses the HTML stored at publish: this is the tool a user would pick
 * instead, building what a reader gets, not the same code path. The site lives in a temp dir
 * the caller removes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CorpusPost } from '../corpus.js';

const CONFIG = `baseURL = "https://hugo.example/"
title = "Bench blog"
languageCode = "en"
paginate = 20
disableKinds = []
[taxonomies]
  tag = "tags"
`;

const SINGLE = `<!doctype html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><article><h1>{{ .Title }}</h1><time>{{ .Date.Format "2006-01-02" }}</time>
<ul>{{ range .Params.tags }}<li><a href="{{ "tags/" | relURL }}{{ . | urlize }}/">{{ . }}</a></li>{{ end }}</ul>
{{ .Content }}</article></body></html>
`;

const LIST = `<!doctype html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><h1>{{ .Title }}</h1><ul>{{ range (.Paginate .Pages).Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ .Date.Format "2006-01-02" }}</li>{{ end }}</ul>
{{ with .Paginator }}{{ if .HasPrev }}<a href="{{ .Prev.URL }}">newer</a>{{ end }}{{ if .HasNext }}<a href="{{ .Next.URL }}">older</a>{{ end }}{{ end }}</body></html>
`;

export interface HugoSite {
  dir: string;
  /** Adds posts as content files (the site grows with the bench's blog). */
  add(posts: readonly CorpusPost[]): void;
  remove(): void;
}

/** Hugo's version line, or null when no `hugo` is on the PATH. */
export function hugoVersion(): string | null {
  try {
    return execFileSync('hugo', ['version'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

export function createHugoSite(): HugoSite {
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-hugo-'));
  mkdirSync(join(dir, 'content', 'posts'), { recursive: true });
  mkdirSync(join(dir, 'layouts', '_default'), { recursive: true });
  writeFileSync(join(dir, 'config.toml'), CONFIG);
  writeFileSync(join(dir, 'layouts', '_default', 'single.html'), SINGLE);
  writeFileSync(join(dir, 'layouts', '_default', 'list.html'), LIST);
  return {
    dir,
    add(posts) {
      for (const post of posts) writeFileSync(join(dir, 'content', 'posts', `${post.slug}.md`), contentFile(post));
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function contentFile(post: CorpusPost): string {
  const front = [
    `title: ${JSON.stringify(post.title)}`,
    `date: ${post.date}`,
    `slug: ${JSON.stringify(post.slug)}`,
    `tags: ${JSON.stringify(post.tags.slice(0, 10))}`,
  ];
  return `---\n${front.join('\n')}\n---\n\n${post.body}\n`;
}

export interface HugoBuild {
  ms: number;
  /** Peak resident memory (GNU time's %M), or null without /usr/bin/time. */
  maxRssMb: number | null;
  pages: number;
}

/** One full build of the site into a fresh output folder (removed after), timed from outside. */
export function buildHugo(site: HugoSite): HugoBuild {
  const out = join(site.dir, 'public');
  rmSync(out, { recursive: true, force: true });
  const withTime = spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0;
  const args = ['--source', site.dir, '--destination', out, '--quiet'];
  const started = performance.now();
  const run = withTime
    ? spawnSync('/usr/bin/time', ['-f', 'maxrss=%M', 'hugo', ...args], { maxBuffer: 1 << 24 })
    : spawnSync('hugo', args, { maxBuffer: 1 << 24 });
  const ms = performance.now() - started;
  const stderr = run.stderr.toString();
  if (run.status !== 0) throw new Error(`hugo exited with ${run.status}: ${stderr.slice(-300)}`);
  const rss = /maxrss=(\d+)/.exec(stderr);
  // Counted by the shell: 100,000 paths would overflow a captured listing.
  const pages = Number(execFileSync('sh', ['-c', 'find "$1" -type f -name "*.html" | wc -l', 'sh', out]).toString().trim());
  rmSync(out, { recursive: true, force: true });
  return { ms, maxRssMb: rss ? Number(rss[1]) / 1024 : null, pages };
}
