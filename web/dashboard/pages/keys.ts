/**
 * `/dashboard/keys`: the account's keys (GET/POST/DELETE /v1/account/api-keys): create with
 * scopes and an expiry, the full key shown once with a copy button, revoke after a confirmation.
 * The API refuses to revoke the last account key (409), and the page says so as the API does.
 */
import { api } from '../lib/api.js';
import { byId, fill, formValue, formValues, h, when } from '../lib/dom.js';
import { clearMessage, showError } from '../lib/feedback.js';

interface Key {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  last_used_at: string | null;
  created_at: string;
  expires_at: string | null;
}

/** The grantable scopes (src/services/authContext.ts), with what each lets a key do. */
const SCOPES: [string, string][] = [
  ['*', 'Everything'],
  ['posts:read', 'Read posts'],
  ['posts:write', 'Write posts'],
  ['blogs:read', 'Read blogs'],
  ['blogs:write', 'Change blogs'],
  ['keys:manage', 'Manage keys'],
  ['domains:write', 'Change domains'],
  ['search:read', 'Search'],
  ['media:read', 'Read media'],
  ['media:write', 'Upload media'],
  ['analytics:read', 'Read analytics'],
];

const list = byId('keys-list');
const errorRegion = byId('keys-error');
const newKey = byId('new-key');
const form = byId<HTMLFormElement>('create-key');
const formError = byId('create-key-error');

fill(
  byId('k-scopes'),
  h('legend', {}, 'Scopes'),
  SCOPES.map(([scope, label]) => {
    const id = `scope-${scope === '*' ? 'all' : scope.replace(':', '-')}`;
    return h(
      'p',
      { class: 'check' },
      h('input', { type: 'checkbox', id, name: 'scopes', value: scope, checked: scope === '*' }),
      h('label', { for: id }, `${label} `, h('code', {}, scope)),
    );
  }),
);

async function showKeys(): Promise<void> {
  try {
    const { body } = await api<{ data: Key[] }>('/account/api-keys');
    fill(
      list,
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Key', 'Scopes', 'Last used', 'Expires'].map((label) => h('th', { scope: 'col' }, label)),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        h(
          'tbody',
          {},
          body.data.map((key) => {
            const expired = key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();
            return h(
              'tr',
              {},
              h('td', {}, key.name),
              h('td', {}, h('code', {}, `${key.key_prefix}…`)),
              h('td', {}, key.scopes.join(', ')),
              h('td', {}, key.last_used_at ? when(key.last_used_at) : 'Never'),
              h('td', {}, key.expires_at ? `${expired ? 'Expired ' : ''}${when(key.expires_at)}` : 'Never'),
              h(
                'td',
                {},
                h(
                  'button',
                  { type: 'button', class: 'danger', 'data-revoke': key.id, 'data-name': key.name, 'aria-label': `Revoke ${key.name} (${key.key_prefix})` },
                  'Revoke',
                ),
              ),
            );
          }),
        ),
      ),
    );
  } catch (error) {
    fill(list);
    showError(errorRegion, error);
  }
}

list.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-revoke]') : null;
  if (!button) return;
  if (window.confirm(`Revoke the key “${button.dataset.name ?? ''}”? Programs using it stop working at once.`)) void revoke(button.dataset.revoke ?? '');
});

async function revoke(id: string): Promise<void> {
  clearMessage(errorRegion);
  try {
    await api(`/account/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
    fill(newKey);
    await showKeys();
  } catch (error) {
    showError(errorRegion, error);
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void create();
});

async function create(): Promise<void> {
  clearMessage(formError);
  const days = Number.parseInt(formValue(form, 'expiry'), 10);
  const expires = Number.isFinite(days) ? new Date(Date.now() + days * 86_400_000).toISOString() : null;
  const scopes = formValues(form, 'scopes');
  try {
    const { body } = await api<{ name: string; key: string }>('/account/api-keys', {
      method: 'POST',
      body: { name: formValue(form, 'name') || undefined, scopes: scopes.includes('*') ? ['*'] : scopes, expires_at: expires },
    });
    fill(
      newKey,
      h(
        'div',
        { class: 'notice once', tabindex: -1, id: 'new-key-notice' },
        h('p', {}, `Key “${body.name}” created. Copy it now: it is shown only once.`),
        h(
          'p',
          {},
          h('code', { id: 'new-key-value' }, body.key),
          ' ',
          h('button', { type: 'button', class: 'secondary', 'data-copy': 'new-key-value' }, 'Copy key'),
          h('span', { role: 'status', class: 'copied' }),
        ),
      ),
    );
    form.reset();
    byId('new-key-notice').focus();
    await showKeys();
  } catch (error) {
    showError(formError, error);
  }
}

void showKeys();
