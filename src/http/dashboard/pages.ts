/**
 * The dashboard's pages (docs/dashboard.md): each row is a server-rendered shell,
 * `templates/dashboard/<template>.eta` inside the layout, with the page's own script and
 * stylesheet (`web/dashboard/pages/<entry>.ts`, `web/dashboard/styles/<entry>.css`) beside
 * shell.js and dashboard.css. The page's data comes from /v1 in the browser. Every page needs a
 * session: without one a browser is sent to /dashboard/sign-in. Route parameters reach the page
 * as `data-*` attributes of <main> (`:blogId` → `data-blog-id`).
 */
export interface DashboardPage {
  /** A koa-router path under /dashboard. */
  path: string;
  /** templates/dashboard/<template>.eta: the shell's content (what shows while loading). */
  template: string;
  /** The page's entry (web/dashboard/pages/<entry>.ts); its stylesheet is added when built. */
  entry: string | null;
  title: string;
  /** Which header link is marked as the current page. */
  nav?: 'blogs' | 'keys' | 'account';
}

export const DASHBOARD_PAGES: readonly DashboardPage[] = [
  { path: '/dashboard', template: 'blogs', entry: 'blogs', title: 'Blogs', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/posts', template: 'posts', entry: 'posts', title: 'Posts', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/settings', template: 'settings', entry: 'settings', title: 'Blog settings', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/domain', template: 'domain', entry: 'domain', title: 'Custom domain', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/webhooks', template: 'webhooks', entry: 'webhooks', title: 'Webhooks', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/analytics', template: 'analytics', entry: 'analytics', title: 'Analytics', nav: 'blogs' },
  { path: '/dashboard/keys', template: 'keys', entry: 'keys', title: 'API keys', nav: 'keys' },
  { path: '/dashboard/account', template: 'account', entry: 'account', title: 'Account', nav: 'account' },
  // The editor. A new post is outside /posts/, so every slug (`new` included) has its address there.
  { path: '/dashboard/blogs/:blogId/new-post', template: 'editor', entry: 'editor', title: 'New post', nav: 'blogs' },
  { path: '/dashboard/blogs/:blogId/posts/:slug', template: 'editor', entry: 'editor', title: 'Edit post', nav: 'blogs' },
];
