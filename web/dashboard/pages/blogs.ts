/**
 * `/dashboard`: the account's blogs (GET /v1/blogs) and the form that creates one
 * (POST /v1/blogs); a plan's blog limit is the API's 403, shown as it says it.
 */
import { api } from '../lib/api.js';
import { byId, fill, formValue, h } from '../lib/dom.js';
import { clearMessage, showError, showStatus } from '../lib/feedback.js';

interface BlogEntry {
  id: string;
  slug: string;
  name: string;
  description: string;
  custom_domain: string | null;
}

const list = byId('blogs-list');
const form = byId<HTMLFormElement>('create-blog');
const errorRegion = byId('create-error');
const status = byId('create-status');

const blogPath = (id: string, page: string) => `/dashboard/blogs/${encodeURIComponent(id)}/${page}`;

async function showBlogs(): Promise<void> {
  try {
    const { body } = await api<{ data: BlogEntry[] }>('/blogs');
    if (body.data.length === 0) {
      fill(list, h('p', {}, 'You have no blog yet: create one below.'));
      return;
    }
    const rows = body.data.map((blog) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: blogPath(blog.id, 'posts') }, blog.name), blog.description ? h('div', { class: 'muted' }, blog.description) : null),
        h('td', {}, h('code', {}, blog.slug)),
        h('td', { 'data-url-of': blog.id }, blog.custom_domain ?? '…'),
        h('td', {}, h('a', { href: blogPath(blog.id, 'settings'), 'aria-label': `Settings of ${blog.name}` }, 'Settings')),
      ),
    );
    fill(
      list,
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, 'Your blogs'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Name'),
            h('th', { scope: 'col' }, 'Slug'),
            h('th', { scope: 'col' }, 'Address'),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
        h('tbody', {}, rows),
      ),
    );
    // The list answer has no address; each blog's own answer does (a few blogs per account).
    await Promise.all(body.data.slice(0, 20).map((blog) => showAddress(blog.id)));
  } catch (error) {
    fill(list);
    const region = h('div');
    list.append(region);
    showError(region, error);
  }
}

async function showAddress(id: string): Promise<void> {
  const cell = list.querySelector(`[data-url-of="${CSS.escape(id)}"]`);
  if (!cell) return;
  try {
    const { body } = await api<{ url: string }>(`/blogs/${encodeURIComponent(id)}`);
    fill(cell, h('a', { href: body.url }, body.url.replace(/^https?:\/\//, '').replace(/\/$/, '')));
  } catch {
    fill(cell, '—');
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void create();
});

async function create(): Promise<void> {
  clearMessage(errorRegion);
  const button = form.querySelector('button');
  if (button) button.disabled = true;
  showStatus(status, 'Creating…');
  const description = formValue(form, 'description');
  try {
    const { body } = await api<{ id: string }>('/blogs', {
      method: 'POST',
      body: {
        name: formValue(form, 'name'),
        slug: formValue(form, 'slug'),
        ...(description ? { description } : {}),
        discoverable: formValue(form, 'discoverable') === 'on',
      },
    });
    showStatus(status, 'Created');
    window.location.assign(blogPath(body.id, 'posts'));
  } catch (error) {
    showStatus(status, '');
    showError(errorRegion, error);
  } finally {
    if (button) button.disabled = false;
  }
}

void showBlogs();
