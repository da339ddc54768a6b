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

async function showDeliveries(id: string): Promise<void> {
  deliveries.hidden = false;
  const region = byId('deliveries-list');
  fill(region, h('p', { class: 'muted' }, 'Loading deliveries…'));
  try {
    const { body } = await api<{ data: Attempt[] }>(`${base}/${encodeURIComponent(id)}/deliveries`);
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
                ),
              ),
            ),
          ),
    );
  } catch (error) {
    fill(region);
    showError(errorRegion, error);
  }
  byId('deliveries-heading').focus();
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
