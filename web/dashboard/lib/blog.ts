/**
 * What every blog page starts with: its blog id from `<main data-blog-id>`, the blog itself
 * (GET /v1/blogs/:id), and the account's plan. A blog id of another account answers 404 like
 * an unknown one, and the page then shows only "Blog not found": no data of any blog.
 */
import { api, ApiError } from './api.js';
import { fill, h } from './dom.js';
import { describe } from './feedback.js';
import { isPlan, type Plan } from './plans.js';

export interface Blog {
  id: string;
  slug: string;
  name: string;
  description: string;
  url: string;
  custom_domain: string | null;
  theme_config: Record<string, string>;
  discoverable: boolean;
}

export interface Account {
  id: string;
  plan: Plan;
}

export function mainElement(): HTMLElement {
  const main = document.querySelector<HTMLElement>('main[data-page]');
  if (!main) throw new Error('the page has no <main data-page>');
  return main;
}

export function blogIdOfPage(): string {
  return mainElement().dataset.blogId ?? '';
}

/** The page's blog, or null after the page was replaced by the not-found (or failure) message. */
export async function loadBlog(): Promise<Blog | null> {
  const id = blogIdOfPage();
  try {
    const { body } = await api<Blog>(`/blogs/${encodeURIComponent(id)}`);
    const site = document.getElementById('view-site');
    if (site instanceof HTMLAnchorElement) {
      site.href = body.url;
      site.hidden = false;
    }
    for (const name of document.querySelectorAll('[data-blog-name]')) name.textContent = body.name;
    return body;
  } catch (error) {
    showPageFailure(error);
    return null;
  }
}

export async function loadAccount(): Promise<Account> {
  const { body } = await api<{ id: string; plan: string }>('/account');
  return { id: body.id, plan: isPlan(body.plan) ? body.plan : 'free' };
}

/** Replaces the page's content: "Blog not found" for a 404, else the failure in role=alert. */
export function showPageFailure(error: unknown): void {
  const main = mainElement();
  document.getElementById('blog-nav')?.remove();
  if (error instanceof ApiError && error.status === 404) {
    document.title = 'Blog not found · Folio';
    fill(
      main,
      h('h1', {}, 'Blog not found'),
      h('p', {}, 'There is no blog with this address in your account. It may have been deleted, or the link belongs to another account.'),
      h('p', {}, h('a', { href: '/dashboard' }, 'Back to your blogs')),
    );
    return;
  }
  fill(main, h('h1', {}, 'This page could not be loaded'), h('p', { role: 'alert' }, describe(error)), h('p', {}, h('a', { href: '' }, 'Try again')));
}
