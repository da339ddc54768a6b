/**
 * `/dashboard/blogs/<id>/domain`: the blog's custom domain (GET/POST/DELETE
 * /v1/blogs/:id/domain). While it is pending, both DNS records to add are shown with copy
 * buttons, with the last check's error; the page asks again every 20 seconds (each GET is also
 * a check) and says when the domain turns active.
 */
import { api, ApiError } from '../lib/api.js';
import { blogIdOfPage, loadAccount, loadBlog, showPageFailure } from '../lib/blog.js';
import { byId, fill, formValue, h, when } from '../lib/dom.js';
import { clearMessage, showError } from '../lib/feedback.js';
import { minimumPlan, planIncludes, planName } from '../lib/plans.js';

interface Domain {
  hostname: string;
  status: 'pending_verification' | 'active';
  cname_target: string;
  verification?: { type: 'TXT'; name: string; value: string };
  expires_at?: string;
  last_error?: string | null;
}

const POLL_MS = 20_000;
const blogId = blogIdOfPage();
const body = byId('domain-body');
const errorRegion = byId('domain-error');
const path = `/blogs/${encodeURIComponent(blogId)}/domain`;
let timer: number | undefined;

/** One record row: its cells are copyable by id. */
function recordRow(type: string, name: string, value: string, n: number): HTMLElement {
  const cell = (id: string, text: string, label: string) =>
    h(
      'td',
      {},
      h('code', { id }, text),
      ' ',
      h('button', { type: 'button', class: 'secondary small', 'data-copy': id, 'aria-label': `Copy ${label}` }, 'Copy'),
      h('span', { role: 'status', class: 'copied' }),
    );
  return h('tr', {}, h('td', {}, type), cell(`rec-${n}-name`, name, `${type} name`), cell(`rec-${n}-value`, value, `${type} value`));
}

function showDomain(domain: Domain): void {
  const pending = domain.status === 'pending_verification';
  const records = [recordRow('CNAME', domain.hostname, domain.cname_target, 1)];
  if (domain.verification) records.push(recordRow('TXT', domain.verification.name, domain.verification.value, 2));
  fill(
    body,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Hostname'),
      h('dd', {}, h('code', {}, domain.hostname)),
      h('dt', {}, 'Status'),
      h(
        'dd',
        {},
        h('span', { id: 'domain-status', tabindex: -1, class: `status status-${pending ? 'draft' : 'published'}` }, pending ? 'Waiting for DNS' : 'Active'),
      ),
      pending ? [h('dt', {}, 'Last check'), h('dd', { id: 'domain-last-error' }, domain.last_error ?? 'Not checked yet')] : null,
      pending && domain.expires_at ? [h('dt', {}, 'Registration lapses'), h('dd', {}, when(domain.expires_at))] : null,
    ),
    pending
      ? h('p', {}, 'Add both records at your DNS provider, exactly as shown. Folio checks them in the background and on this page every 20 seconds.')
      : h('p', {}, `The blog is served on ${domain.hostname}.`),
    h(
      'table',
      { class: 'records' },
      h('caption', {}, 'DNS records'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Value'))),
      h('tbody', {}, records),
    ),
    h(
      'p',
      { class: 'actions' },
      pending ? h('button', { type: 'button', id: 'check-domain', class: 'secondary' }, 'Check now') : null,
      ' ',
      h('button', { type: 'button', id: 'remove-domain', class: 'danger' }, 'Remove domain'),
    ),
  );
  window.clearTimeout(timer);
  if (pending) timer = window.setTimeout(() => void refresh(), POLL_MS);
}

function showForm(allowed: boolean, planLine: string): void {
  const form = h(
    'form',
    { id: 'register-domain', novalidate: true },
    h('label', { for: 'd-hostname' }, 'Hostname'),
    h('input', {
      id: 'd-hostname',
      name: 'hostname',
      required: true,
      maxlength: 253,
      placeholder: 'blog.example.com',
      disabled: !allowed,
      'aria-describedby': 'd-hint',
      spellcheck: 'false',
      autocomplete: 'off',
    }),
    h('p', { id: 'd-hint', class: 'hint muted' }, allowed ? 'A name you control, such as a subdomain of your own domain.' : planLine),
    h('p', {}, h('button', { type: 'submit', disabled: !allowed }, 'Add domain')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void register(formValue(form, 'hostname'));
  });
  fill(body, h('p', {}, 'The blog has no custom domain.'), form);
}

async function refresh(): Promise<void> {
  try {
    const { body: domain } = await api<Domain>(path);
    clearMessage(errorRegion);
    showDomain(domain);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) await showRegistration();
    else showError(errorRegion, error);
  }
}

async function showRegistration(): Promise<void> {
  window.clearTimeout(timer);
  const account = await loadAccount().catch(() => null);
  const plan = account?.plan ?? 'free';
  showForm(planIncludes(plan, 'domains'), `Custom domains need the ${planName(minimumPlan('domains'))} plan (yours is ${planName(plan)}).`);
}

async function register(hostname: string): Promise<void> {
  clearMessage(errorRegion);
  try {
    const { body: domain } = await api<Domain>(path, { method: 'POST', body: { hostname } });
    showDomain(domain);
    byId('domain-status').focus();
  } catch (error) {
    showError(errorRegion, error);
  }
}

body.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  if (button?.id === 'check-domain') void refresh();
  if (button?.id === 'remove-domain' && window.confirm('Remove the custom domain? The blog stays on its Folio address.')) void remove();
});

async function remove(): Promise<void> {
  clearMessage(errorRegion);
  try {
    await api(path, { method: 'DELETE' });
    await showRegistration();
  } catch (error) {
    showError(errorRegion, error);
  }
}

async function start(): Promise<void> {
  const blog = await loadBlog();
  if (!blog) return;
  // The blog names its domain (pending or active): a blog without one is not asked for it, which
  // would be a 404 in the browser's console.
  if (blog.custom_domain === null) await showRegistration();
  else await refresh();
}

start().catch(showPageFailure);
