import { join } from 'node:path';
import { Eta } from 'eta';
import type { ParameterizedContext } from 'koa';
import { templatesDir } from '../../lib/paths.js';
import type { DashboardAssets } from './assets.js';

/**
 * The dashboard's Content-Security-Policy: nothing inline, nothing from elsewhere; images may be
 * data: and blob: URLs (pasted images before upload) and the blogs' own hosts (`imgSources`);
 * frames only from this host.
 */
export function dashboardPolicy(imgSources: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ['img-src', "'self'", 'data:', 'blob:', ...imgSources].join(' '),
    "connect-src 'self'",
    // The editor's Preview region is a frame of this host (previewFrame.ts); nothing frames the dashboard.
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** What the layout is given (the shell contract of docs/dashboard.md). */
export interface ShellData {
  title: string;
  page: string;
  /** Set when signed in: the header's nav and <meta name="folio-csrf"> need it. */
  csrf: string | null;
  nav?: string;
  /** Route parameters, rendered as data-* attributes of <main>. */
  params?: Record<string, string>;
}

/** Renders the dashboard's eta templates (templates/dashboard/) into the layout. */
export class DashboardViews {
  private readonly eta = new Eta({ views: join(templatesDir, 'dashboard'), autoEscape: true, autoTrim: false, cache: true });

  constructor(private readonly assets: DashboardAssets) {}

  /**
   * Answers an HTML page: `template` inside the layout, with shell.js, dashboard.css and the
   * entry's files. A missing build answers a page that says how to build it (503).
   */
  send(ctx: ParameterizedContext, status: number, template: string, shell: ShellData, data: Record<string, unknown> = {}, entry: string | null = null): void {
    const needed = ['shell.js', 'dashboard.css', ...(entry ? [`${entry}.js`] : [])];
    const missing = needed.find((name) => this.assets.url(name) === null);
    if (missing !== undefined && entry !== null) {
      this.send(ctx, 503, 'notBuilt', { ...shell, title: 'Dashboard not built', page: 'not-built' }, { missing });
      return;
    }
    const scripts = ['shell.js', ...(entry ? [`${entry}.js`] : [])].map((name) => this.assets.url(name)).filter((url) => url !== null);
    const styles = ['dashboard.css', ...(entry ? [`${entry}.css`] : [])].map((name) => this.assets.url(name)).filter((url) => url !== null);
    const body = this.eta.render(template, { ...data, ...shell });
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = this.eta.render('layout', { ...shell, params: dataAttributes(shell.params ?? {}), scripts, styles, body });
  }
}

/** `{blogId: 'x'}` → `[['data-blog-id', 'x']]`. */
function dataAttributes(params: Record<string, string>): [string, string][] {
  return Object.entries(params).map(([name, value]) => [`data-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value]);
}
