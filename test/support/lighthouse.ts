/**
 * Lighthouse run programmatically against Debian's Chromium: the browser is started by
 * playwright-core (as every browser test starts it) with a debugging port Lighthouse connects
 * to, so no second launcher is needed; one browser serves every audit of a suite (each audit
 * opens its own tab). A signed-in page is audited with the session cookie sent as a header on
 * every request of the load.
 */
import lighthouse from 'lighthouse';
import { launchChromium } from '../../bench/harness/chromium.js';
import { freePort } from '../../bench/harness/ports.js';

export interface LighthouseResult {
  /** Category id → score from 0 to 100. */
  scores: Record<string, number>;
  /** The audits that did not pass, to say why a score is below 100. */
  failing: string[];
}

export interface AuditOptions {
  cookie?: string;
  categories?: string[];
  formFactor?: 'desktop' | 'mobile';
}

export interface LighthouseBrowser {
  audit(url: string, options?: AuditOptions): Promise<LighthouseResult>;
  close(): Promise<void>;
}

export async function startLighthouse(): Promise<LighthouseBrowser> {
  const port = await freePort();
  const browser = await launchChromium([`--remote-debugging-port=${port}`, '--remote-debugging-address=127.0.0.1']);
  return {
    async audit(url, options = {}) {
      const categories = options.categories ?? ['accessibility', 'best-practices'];
      const desktop = (options.formFactor ?? 'desktop') === 'desktop';
      const result = await lighthouse(url, {
        port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: categories,
        formFactor: desktop ? 'desktop' : 'mobile',
        screenEmulation: desktop
          ? { mobile: false, width: 1280, height: 900, deviceScaleFactor: 1, disabled: false }
          : { mobile: true, width: 390, height: 844, deviceScaleFactor: 2, disabled: false },
        ...(options.cookie ? { extraHeaders: { Cookie: options.cookie } } : {}),
      });
      if (!result) throw new Error(`lighthouse gave no result for ${url}`);
      const { lhr } = result;
      const scores = Object.fromEntries(categories.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]));
      const failing = Object.values(lhr.audits)
        .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative' && audit.scoreDisplayMode !== 'manual')
        .map((audit) => `${audit.id}: ${audit.title}`);
      return { scores, failing };
    },
    close: () => browser.close(),
  };
}
