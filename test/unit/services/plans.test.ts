import { describe, expect, it } from 'vitest';
import { allowedTheme, themeKeyCapability, PLANS, type Plan } from '../../../src/domain/plans.js';
import type { ThemeConfig } from '../../../src/domain/siteTypes.js';

const FULL: Required<ThemeConfig> = {
  customCss: 'a{}',
  adCode: '<ins></ins>',
  cssUrl: 'https://cdn.example.com/x.css',
  headerHtml: '<nav></nav>',
  footerHtml: '<p></p>',
};

/** api.md §8: basic theme keys from starter, HTML keys from creator. */
const RENDERED: Record<Plan, (keyof ThemeConfig)[]> = {
  free: [],
  starter: ['customCss', 'adCode', 'cssUrl'],
  creator: ['customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml'],
  scale: ['customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml'],
  enterprise: ['customCss', 'adCode', 'cssUrl', 'headerHtml', 'footerHtml'],
};

describe('allowedTheme', () => {
  for (const plan of PLANS) {
    it(`keeps exactly the keys the ${plan} plan includes`, () => {
      expect(Object.keys(allowedTheme(plan, FULL)).sort()).toEqual([...RENDERED[plan]].sort());
      for (const key of RENDERED[plan]) expect(allowedTheme(plan, FULL)[key]).toBe(FULL[key]);
    });
  }

  it('leaves the stored theme untouched and drops keys that are not theme keys', () => {
    const stored = { ...FULL, script: '<script>x</script>' } as ThemeConfig;
    expect(allowedTheme('enterprise', stored)).toEqual(FULL);
    expect(stored).toEqual({ ...FULL, script: '<script>x</script>' });
  });

  it('names the capability each key needs, and none for other keys', () => {
    expect(themeKeyCapability('headerHtml')).toBe('theme:html');
    expect(themeKeyCapability('cssUrl')).toBe('theme:basic');
    expect(themeKeyCapability('toString')).toBeNull();
  });
});
