/**
 * The theme: eta views and assets read from templates/ once, when the theme is loaded (wired
 * in compose.ts), and compiled then, so rendering thousands of pages never touches the disk.
 * Eta's auto-escaping stays on; views print raw (`<%~`) only values made safe before they
 * reach the view: sanitised post HTML, the blog owner's own header/footer/ad HTML, JSON-LD
 * from jsonForScript and custom CSS from neutraliseStyleText.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Eta } from 'eta';
import { createThemeAsset, type ThemeAsset } from './assets.js';
import { buildSearchScript } from './searchScript.js';

export type ViewName = 'layout' | 'home' | 'archive' | 'tag' | 'tagIndex' | 'archiveIndex' | 'search' | 'post' | '404' | 'redirect';

const VIEWS: readonly ViewName[] = ['layout', 'home', 'archive', 'tag', 'tagIndex', 'archiveIndex', 'search', 'post', '404', 'redirect'];
const STYLESHEET = 'site.css';

export interface Theme {
  /** Renders a view with its view model. */
  render(view: ViewName, data: object): string;
  readonly assets: readonly ThemeAsset[];
  /** Hashed file name of the main stylesheet (`site.<hash>.css`). */
  readonly stylesheet: string;
  /** Hashed file name of the search page's script (`search.<hash>.js`). */
  readonly searchScript: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export function loadTheme(templatesDir: string): Theme {
  const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
  const assetsDir = join(templatesDir, 'assets');
  const assets: ThemeAsset[] = [];
  const views = new Set<string>();
  for (const file of filesUnder(templatesDir)) {
    const name = relative(templatesDir, file).split(sep).join('/');
    // The dashboard's pages (src/http/dashboard/) are not the site's theme.
    if (name.startsWith('dashboard/')) continue;
    if (name.startsWith('assets/')) {
      assets.push(createThemeAsset(relative(assetsDir, file).split(sep).join('/'), readFileSync(file)));
    } else if (name.endsWith('.eta')) {
      // Named templates (`@post`, `@partials/pager`) are looked up in eta's cache, never on disk.
      const view = name.slice(0, -'.eta'.length);
      eta.loadTemplate(`@${view}`, readFileSync(file, 'utf8'));
      views.add(view);
    }
  }
  const missing = VIEWS.filter((view) => !views.has(view));
  if (missing.length > 0) throw new Error(`theme in ${templatesDir} lacks ${missing.map((v) => `${v}.eta`).join(', ')}`);
  const stylesheet = assets.find((asset) => asset.name === STYLESHEET);
  if (!stylesheet) throw new Error(`theme in ${templatesDir} has no assets/${STYLESHEET}`);
  const searchScript = createThemeAsset('search.js', Buffer.from(buildSearchScript(templatesDir)));
  assets.push(searchScript);
  return {
    render: (view, data) => eta.render(`@${view}`, data),
    assets,
    stylesheet: stylesheet.fileName,
    searchScript: searchScript.fileName,
  };
}

/**
 * The theme, loaded on first use: a server's start-up does not wait for reading and compiling
 * the views and assets, which only publishing needs. The theme ships with Folio,
 * so a broken one is a build error that the tests catch, not an operator's mistake to report at
 * start.
 */
export function lazyTheme(templatesDir: string): Theme {
  let theme: Theme | undefined;
  const load = (): Theme => (theme ??= loadTheme(templatesDir));
  return {
    render: (view, data) => load().render(view, data),
    get assets() {
      return load().assets;
    },
    get stylesheet() {
      return load().stylesheet;
    },
    get searchScript() {
      return load().searchScript;
    },
  };
}
