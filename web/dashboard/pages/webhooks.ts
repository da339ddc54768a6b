/**
 * `/dashboard/blogs/<id>/webhooks`: the blog's webhooks (GET/POST/DELETE
 * /v1/blogs/:id/webhooks), the signing secret shown once after creation, and each webhook's
 * latest delivery attempts (GET …/deliveries) to debug a receiver.
 */
import { api } from '../lib/api.js';
import { blogIdOfPage, loadBlog, showPageFailure } from '../lib/blog.js';
import { byId, fill, formValue, formValues, h, when } from '../lib/dom.js';
import { clearMessage, showError } from '../lib/feedback.js';

/** The events of src/webhooks/webhookEvents.ts (browser code cannot import that module's Node side). */
const EVENTS = ['post.published', 'post.updated', 'post.unpublished', 'post.deleted', 'post.scheduled', 'blog.updated', 'domain.activated'];

interface Webhook {
  id: string;
  url: string;
  events: string[];
  created_at: string;
}
interface Attempt {
  delivery_id: string;
  event: string;
  delivery_status: 'pending' | 'delivered' | 'failed';
  attempt: number;
  at: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

const blogId = blogIdOfPage();
const base = `/blogs/${encodeURIComponent(blogId)}/webhooks`;
const list = byId('webhooks-list');
const errorRegion = byId('webhooks-error');
const secretRegion = byId('webhook-secret');
const deliveries = byId('deliveries');
const form = byId<HTMLFormElement>('create-webhook');
const formError = byId('create-webhook-error');

fill(
  byId('w-events'),
  h('legend', {}, 'Events'),
  EVENTS.map((event) => {
    const id = `ev-${event.replace('.', '-')}`;
    return h(
      'p',
      { class: 'check' },
      h('input', { type: 'checkbox', id, name: 'events', value: event, checked: event.startsWith('post.') }),
      h('label', { for: id }, event),
    );
  }),
);

async function showWebhooks(): Promise<void> {
  try {
    const { body } = await api<{ data: Webhook[] }>(base);
    if (body.data.length === 0) {
      fill(list, h('p', {}, 'No webhook yet.'));
      return;
    }
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
            h('th', { scope: 'col' }, 'Address'),
            h('th', { scope: 'col' }, 'Events'),
            h('th', { scope: 'col' }, 'Created'),
            h('th', { scope: 'col' }, 'Actions'),
          ),
        ),
        h(
          'tbody',
          {},
          body.data.map((hook) =>
            h(
              'tr',
              {},
              h('td', { class: 'wrap' }, h('code', {}, hook.url)),
              h('td', {}, hook.events.join(', ')),
              h('td', {}, when(hook.created_at)),
              h(
                'td',
                { class: 'actions' },
                h('button', { type: 'button', class: 'secondary', 'data-deliveries': hook.id, 'aria-label': `Deliveries to ${hook.url}` }, 'Deliveries'),
                ' ',
                h('button', { type: 'button', class: 'danger', 'data-delete': hook.id, 'aria-label': `Delete the webhook to ${hook.url}` }, 'Delete'),
              ),
            ),
          ),
        ),
      ),
    );
  } catch (error) {
    showError(errorRegion, error);
  }
}

async function showDeliveries(id: string, focus = true): Promise<void> {
  deliveries.hidden = false;
  const region = byId('deliveries-list');
  fill(region, h('p', { class: 'muted' }, 'Loading deliveries…'));
  try {
    const { body } = await api<{ data: Attempt[] }>(`${base}/${encodeURIComponent(id)}/deliveries`);
    // One Redeliver button per delivery, on its newest attempt (the list is newest first).
    const newest = new Map<string, Attempt>();
    for (const a of body.data) if (!newest.has(a.delivery_id)) newest.set(a.delivery_id, a);
    fill(
      region,
      body.data.length === 0
        ? h('p', {}, 'Nothing delivered yet: deliveries appear here when an event happens.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Event', 'Status', 'Attempt', 'When', 'Answer', 'Time', 'Error'].map((label) => h('th', { scope: 'col' }, label)),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
              ),
            ),
            h(
              'tbody',
              {},
              body.data.map((a) =>
                h(
                  'tr',
                  {},
                  h('td', {}, a.event),
                  h('td', {}, h('span', { class: `status status-${a.delivery_status}` }, a.delivery_status)),
                  h('td', {}, a.attempt),
                  h('td', {}, when(a.at)),
                  h('td', {}, a.response_code ?? '—'),
                  h('td', {}, `${a.duration_ms} ms`),
                  h('td', { class: 'wrap' }, a.error ?? ''),
                  h(
                    'td',
                    {},
                    newest.get(a.delivery_id) !== a
                      ? null
                      : h(
                          'button',
                          {
                            type: 'button',
                            class: 'secondary small',
                            'data-redeliver': a.delivery_id,
                            'data-hook': id,
                            'aria-label': `Redeliver ${a.event} of ${when(a.at)}`,
                          },
                          'Redeliver',
                        ),
                  ),
                ),
              ),
            ),
          ),
    );
  } catch (error) {
    fill(region);
    showError(errorRegion, error);
  }
  if (focus) byId('deliveries-heading').focus();
}

deliveries.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-redeliver]') : null;
  if (button) void redeliver(button.dataset.hook ?? '', button.dataset.redeliver ?? '');
});

async function redeliver(hookId: string, deliveryId: string): Promise<void> {
  clearMessage(errorRegion);
  const status = byId('deliveries-status');
  try {
    await api(`${base}/${encodeURIComponent(hookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, { method: 'POST' });
    status.textContent = 'Sent again: its new attempt appears here in a moment.';
    // The send runs in the background; the list is read again once it has had time to answer.
    window.setTimeout(() => void showDeliveries(hookId, false), 1500);
  } catch (error) {
    showError(errorRegion, error);
  }
}

list.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  if (!button) return;
  if (button.dataset.deliveries) void showDeliveries(button.dataset.deliveries);
  const id = button.dataset.delete;
  if (id && window.confirm('Delete this webhook? Deliveries not yet made are dropped.')) void remove(id);
});

async function remove(id: string): Promise<void> {
  clearMessage(errorRegion);
  try {
    await api(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' });
    deliveries.hidden = true;
    await showWebhooks();
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
  try {
    const { body } = await api<Webhook & { secret: string }>(base, {
      method: 'POST',
      body: { url: formValue(form, 'url'), events: formValues(form, 'events') },
    });
    fill(
      secretRegion,
      h(
        'div',
        { class: 'notice once', tabindex: -1, id: 'secret-notice' },
        h('p', {}, `Webhook added. Its signing secret is shown only now: keep it where your receiver checks signatures.`),
        h(
          'p',
          {},
          h('code', { id: 'webhook-secret-value' }, body.secret),
          ' ',
          h('button', { type: 'button', class: 'secondary', 'data-copy': 'webhook-secret-value' }, 'Copy secret'),
          h('span', { role: 'status', class: 'copied' }),
        ),
      ),
    );
    form.reset();
    byId('secret-notice').focus();
    await showWebhooks();
  } catch (error) {
    showError(formError, error);
  }
}

async function start(): Promise<void> {
  if (!(await loadBlog())) return;
  await showWebhooks();
}

start().catch(showPageFailure);
