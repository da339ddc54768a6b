/**
 * `/dashboard/blogs/<id>/posts`: the posts list (GET /v1/posts) with its filters, or the
 * search's hits (GET /v1/search, published posts only) when a query is given. The state lives in
 * the address's query, so reload, back and forward show the same list; links are real links that
 * the page follows itself, so the list is redrawn without a new page.
 */
import { api } from '../lib/api.js';
import { blogIdOfPage, loadBlog } from '../lib/blog.js';
import { byId, fill, h, when } from '../lib/dom.js';
import { clearMessage, showError } from '../lib/feedback.js';

interface Summary {
  title: string;
  slug: string;
  status?: 'draft' | 'published' | 'scheduled';
  tags: string[];
  published_at?: string | null;
  created_at: string;
  updated_at?: string;
}
interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

const PER_PAGE = 20;
const RENDERED = 'folio:posts-rendered';
const FIELDS = ['q', 'status', 'tag', 'sort', 'order', 'page'] as const;
type Field = (typeof FIELDS)[number];

const blogId = blogIdOfPage();
const form = byId<HTMLFormElement>('post-filters');
const list = byId('posts-list');
const summary = byId('posts-summary');
const pager = byId('posts-pager');
const errorRegion = byId('posts-error');
let current: AbortController | null = null;

function stateOf(search: string): Record<Field, string> {
  const params = new URLSearchParams(search);
  return Object.fromEntries(FIELDS.map((f) => [f, params.get(f)?.trim() ?? ''])) as Record<Field, string>;
}

/** The address of a state: only the fields that differ from the defaults. */
function hrefOf(state: Record<Field, string>): string {
  const params = new URLSearchParams();
  for (const field of FIELDS) {
    const value = state[field];
    if (value && !(field === 'page' && value === '1') && !(field === 'sort' && value === 'created_at') && !(field === 'order' && value === 'desc'))
      params.set(field, value);
  }
  const query = params.toString();
  return query ? `?${query}` : window.location.pathname;
}

function showStateInForm(state: Record<Field, string>): void {
  for (const field of FIELDS) {
    const control = form.elements.namedItem(field);
    if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement)
      control.value = state[field] || (control instanceof HTMLSelectElement ? (control.options[0]?.value ?? '') : '');
  }
  const searching = state.q !== '';
  for (const field of ['status', 'sort', 'order', 'tag'] as const) {
    const control = form.elements.namedItem(field);
    if (control instanceof HTMLInputElement || control instanceof HTMLSelectElement) control.disabled = searching;
  }
}

async function show(state: Record<Field, string>): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  showStateInForm(state);
  clearMessage(errorRegion);
  const page = Math.max(1, Number.parseInt(state.page, 10) || 1);
  summary.textContent = 'Loading posts…';
  try {
    const { body } = state.q
      ? await api<{ data: Summary[]; pagination: Pagination }>('/search', {
          blogId,
          query: { q: state.q, page, per_page: PER_PAGE },
          signal: controller.signal,
        })
      : await api<{ data: Summary[]; pagination: Pagination }>('/posts', {
          blogId,
          query: { status: state.status, tag: state.tag, sort: state.sort, order: state.order, page, per_page: PER_PAGE },
          signal: controller.signal,
        });
    if (controller.signal.aborted) return;
    render(body.data, body.pagination, state);
    // What `npm run bench -- --only dashboard` reads: navigation start to the first list drawn.
    if (performance.getEntriesByName(RENDERED).length === 0) performance.mark(RENDERED);
  } catch (error) {
    if (controller.signal.aborted) return;
    summary.textContent = '';
    fill(list);
    fill(pager);
    showError(errorRegion, error);
  }
}

const editorHref = (slug: string) => `/dashboard/blogs/${encodeURIComponent(blogId)}/posts/${encodeURIComponent(slug)}`;

function render(posts: Summary[], pagination: Pagination, state: Record<Field, string>): void {
  const { page, total, total_pages: pages } = pagination;
  const what = state.q ? `published ${total === 1 ? 'post matches' : 'posts match'} “${state.q}”` : `post${total === 1 ? '' : 's'}`;
  summary.textContent =
    total === 0 ? (state.q ? `No published post matches “${state.q}”.` : 'No posts here yet.') : `${total.toLocaleString()} ${what} · page ${page} of ${pages}`;
  if (posts.length === 0) {
    fill(list);
  } else {
    const dateLabel = state.sort === 'updated_at' ? 'Updated' : state.sort === 'published_at' ? 'Published' : 'Created';
    const rows = posts.map((post) => {
      const date = state.sort === 'updated_at' ? post.updated_at : state.sort === 'published_at' ? post.published_at : post.created_at;
      const status = post.status ?? 'published';
      return h(
        'tr',
        {},
        h('td', {}, h('a', { href: editorHref(post.slug) }, post.title || post.slug)),
        h('td', {}, h('span', { class: `status status-${status}` }, status)),
        h(
          'td',
          {},
          post.tags.length ? post.tags.map((tag) => h('a', { class: 'tag', href: hrefOf({ ...emptyState(), tag }) }, tag)) : h('span', { class: 'muted' }, '—'),
        ),
        h('td', {}, h('time', { datetime: date ?? '' }, when(date))),
      );
    });
    fill(
      list,
      h(
        'table',
        { class: 'posts' },
        h('caption', { class: 'visually-hidden' }, 'Posts'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Title'),
            h('th', { scope: 'col' }, 'Status'),
            h('th', { scope: 'col' }, 'Tags'),
            h('th', { scope: 'col' }, dateLabel),
          ),
        ),
        h('tbody', {}, rows),
      ),
    );
  }
  const link = (to: number, label: string, rel: string) => h('a', { href: hrefOf({ ...state, page: String(to) }), rel, class: 'button secondary' }, label);
  fill(
    pager,
    page > 1 ? link(page - 1, 'Previous page', 'prev') : null,
    pages > 1 ? h('span', { class: 'muted' }, ` Page ${page} of ${pages} `) : null,
    page < pages ? link(page + 1, 'Next page', 'next') : null,
  );
}

const emptyState = (): Record<Field, string> => ({ q: '', status: '', tag: '', sort: '', order: '', page: '' });

function go(href: string): void {
  window.history.pushState(null, '', href);
  void show(stateOf(window.location.search));
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const state = emptyState();
  for (const field of FIELDS) {
    const value = data.get(field);
    if (typeof value === 'string') state[field] = value.trim();
  }
  state.page = '1';
  go(hrefOf(state));
});

// Pager, tag and Clear links are followed here: same page, new query, no reload.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = event.target instanceof Element ? event.target.closest('a') : null;
  if (!anchor || !(pager.contains(anchor) || list.contains(anchor) || form.contains(anchor))) return;
  const url = new URL(anchor.href);
  if (url.pathname !== window.location.pathname || url.origin !== window.location.origin) return;
  event.preventDefault();
  go(url.search || url.pathname);
  if (pager.contains(anchor)) summary.focus();
});

window.addEventListener('popstate', () => void show(stateOf(window.location.search)));

summary.tabIndex = -1;
void show(stateOf(window.location.search));
void loadBlog();
