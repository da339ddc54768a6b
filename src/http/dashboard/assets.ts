import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Middleware } from 'koa';
import { NotFoundError } from '../../domain/errors.js';
import { chooseEncoding, CompressedBodies, compressible } from '../siteCompression.js';
import type { AppState } from '../state.js';

const TYPES = new Map([
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.map', 'application/json; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.woff2', 'font/woff2'],
]);

/** Where the dashboard's built assets are served from (names carry their content's hash). */
export const ASSETS_PATH = '/dashboard/assets/';

/**
 * The dashboard's built browser code and styles (scripts/bundleDashboard.mjs): the manifest is
 * read once at start. Without a build (`dist/dashboard/manifest.json` missing) `built` is false
 * and pages say so (a clear page, never a 500).
 */
export class DashboardAssets {
  readonly built: boolean;
  private readonly manifest: ReadonlyMap<string, string>;
  /** Files of dist/dashboard/assets (shared chunks are not in the manifest but are served too). */
  private readonly files: ReadonlySet<string>;
  private readonly reads = new Map<string, Promise<Buffer>>();
  private readonly compressed = new CompressedBodies();

  constructor(private readonly dir: string) {
    const manifestFile = join(dir, 'manifest.json');
    this.built = existsSync(manifestFile);
    this.manifest = new Map(this.built ? Object.entries(JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>) : []);
    this.files = new Set(this.built && existsSync(join(dir, 'assets')) ? readdirSync(join(dir, 'assets')) : []);
  }

  /** `/dashboard/assets/editor-abc123.js` for `editor.js`, or null when the build has no such entry. */
  url(name: string): string | null {
    const file = this.manifest.get(name);
    return file === undefined ? null : `/dashboard/${file}`;
  }

  /** GET /dashboard/assets/<file>: immutable, compressed when the browser takes it. */
  readonly serve: Middleware<AppState> = async (ctx) => {
    const file = ctx.path.slice(ASSETS_PATH.length);
    const type = TYPES.get(extname(file));
    if (!/^[A-Za-z0-9._-]{1,200}$/.test(file) || !this.files.has(file) || type === undefined)
      throw new NotFoundError(`no such dashboard asset: ${file.slice(0, 200)}`);
    const body = await this.read(file);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.vary('Accept-Encoding');
    ctx.type = type;
    const encoding = compressible(type, body.length) ? chooseEncoding(ctx.get('accept-encoding') || undefined) : null;
    if (encoding) {
      ctx.set('Content-Encoding', encoding);
      ctx.body = await this.compressed.get(file, body, encoding);
    } else ctx.body = body;
  };

  private read(file: string): Promise<Buffer> {
    let read = this.reads.get(file);
    if (!read) {
      read = readFile(join(this.dir, 'assets', file));
      this.reads.set(file, read);
      // A failed read is not cached: the next request tries again.
      read.catch(() => this.reads.delete(file));
    }
    return read;
  }
}
