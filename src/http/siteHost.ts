/** Which blog a request's Host names: shared by the site server and the view beacon. */
import type { HostBlog } from '../services/siteHosts.js';

/** Lower-case DNS names only: anything else (`a.b/..`, `a..b`, `[::1]`) is never a blog. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `Host` → a bare lower-case hostname: no port, no trailing dot. */
export function normalizeHost(header: string): string {
  let host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host; // IPv6 literal: never a blog
  host = host.replace(/:\d*$/, '');
  return host.replace(/\.+$/, '');
}

/** The normalised host and the blog it serves (null: not a blog host; NO_BLOG: a blog address no blog holds). */
export async function siteOfHost(header: string, blogForHost: (host: string) => Promise<HostBlog>): Promise<{ host: string; blog: HostBlog }> {
  const host = normalizeHost(header);
  return { host, blog: HOST_NAME.test(host) ? await blogForHost(host) : null };
}
