/**
 * `/dashboard/blogs/<id>/settings`: name, description, discovery and the theme keys
 * (PUT /v1/blogs/:id). A theme key the account's plan lacks is shown disabled with the plan
 * that includes it, from the same plan table the API checks.
 */
import { api } from '../lib/api.js';
import { blogIdOfPage, loadAccount, loadBlog, showPageFailure } from '../lib/blog.js';
import { byId, fill, formValue, h } from '../lib/dom.js';
import { clearMessage, showError, showStatus } from '../lib/feedback.js';
import { type Capability, minimumPlan, planIncludes, planName, type Plan } from '../lib/plans.js';

interface ThemeKey {
  key: string;
  label: string;
  hint: string;
  capability: Capability;
  kind: 'css' | 'html' | 'url';
}

const THEME_KEYS: ThemeKey[] = [
  { key: 'customCss', label: 'Custom CSS', hint: "Added after the theme's own styles.", capability: 'theme:basic', kind: 'css' },
  { key: 'cssUrl', label: 'Style sheet address', hint: 'An http(s) style sheet linked after the theme.', capability: 'theme:basic', kind: 'url' },
  { key: 'adCode', label: 'Ad code', hint: 'HTML placed on post pages.', capability: 'theme:basic', kind: 'html' },
  { key: 'headerHtml', label: 'Header HTML', hint: 'HTML at the top of every page.', capability: 'theme:html', kind: 'html' },
  { key: 'footerHtml', label: 'Footer HTML', hint: 'HTML at the bottom of every page.', capability: 'theme:html', kind: 'html' },
];

const blogId = blogIdOfPage();
const form = byId<HTMLFormElement>('blog-settings');
const themeFields = byId('theme-fields');
const errorRegion = byId('settings-error');
const status = byId('settings-status');
let loaded: Record<string, string> = {};

function themeControl(item: ThemeKey, plan: Plan, value: string): HTMLElement[] {
  const id = `t-${item.key}`;
  const allowed = planIncludes(plan, item.capability);
  const hint = allowed ? item.hint : `${item.hint} Needs the ${planName(minimumPlan(item.capability))} plan (yours is ${planName(plan)}).`;
  const common = { id, name: item.key, 'aria-describedby': `${id}-hint`, disabled: !allowed, 'data-theme-key': item.key, spellcheck: 'false' };
  const control =
    item.kind === 'url'
      ? h('input', { ...common, type: 'url', maxlength: 2048, value })
      : h('textarea', { ...common, rows: item.kind === 'css' ? 6 : 3, class: 'code' }, value);
  return [
    h('label', { for: id }, item.label, allowed ? null : h('span', { class: 'plan-badge' }, ` ${planName(minimumPlan(item.capability))}`)),
    control,
    h('p', { id: `${id}-hint`, class: 'hint muted' }, hint),
  ];
}

async function start(): Promise<void> {
  const [blog, account] = await Promise.all([loadBlog(), loadAccount().catch(() => null)]);
  if (!blog) return;
  const plan = account?.plan ?? 'free';
  loaded = { ...blog.theme_config };
  byId<HTMLInputElement>('s-name').value = blog.name;
  byId<HTMLTextAreaElement>('s-description').value = blog.description;
  byId<HTMLInputElement>('s-discoverable').checked = blog.discoverable;
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLButtonElement>('#s-name, #s-description, #s-discoverable, button'))
    control.disabled = false;
  fill(
    themeFields,
    h('legend', {}, 'Theme'),
    h('p', { class: 'muted' }, `Your plan: ${planName(plan)}. Leave a field empty to remove it.`),
    THEME_KEYS.flatMap((item) => themeControl(item, plan, loaded[item.key] ?? '')),
  );
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void save();
});

async function save(): Promise<void> {
  clearMessage(errorRegion);
  showStatus(status, 'Saving…');
  // Only the keys that changed are sent: a key the plan no longer includes is kept as stored.
  const theme: Record<string, string | null> = {};
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-theme-key]')) {
    const key = control.dataset.themeKey ?? '';
    if (control.disabled) continue;
    const value = control.value.trim();
    if (value !== (loaded[key] ?? '')) theme[key] = value === '' ? null : value;
  }
  try {
    const { body } = await api<{ theme_config: Record<string, string> }>(`/blogs/${encodeURIComponent(blogId)}`, {
      method: 'PUT',
      body: {
        name: formValue(form, 'name'),
        description: byId<HTMLTextAreaElement>('s-description').value,
        discoverable: byId<HTMLInputElement>('s-discoverable').checked,
        ...(Object.keys(theme).length > 0 ? { theme_config: theme } : {}),
      },
    });
    loaded = { ...body.theme_config };
    for (const name of document.querySelectorAll('[data-blog-name]')) name.textContent = formValue(form, 'name');
    showStatus(status, 'Saved. The site is re-rendered in the background.');
  } catch (error) {
    showStatus(status, '');
    showError(errorRegion, error);
  }
}

start().catch(showPageFailure);
