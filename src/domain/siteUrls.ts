/** How public URLs start (FOLIO_PUBLIC_SCHEME). */
export type PublicScheme = 'http' | 'https';

/** Public addresses of blogs and posts: `<slug>.<service domain>`, or the custom domain once it is active. */
export class SiteUrls {
  constructor(private readonly config: { readonly publicScheme: PublicScheme; readonly serviceDomain: string }) {}

  /** Origin of a blog, without a trailing slash. */
  origin(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }): string {
    if (blog.customDomain && blog.domainActive) return `${this.config.publicScheme}://${blog.customDomain}`;
    return `${this.config.publicScheme}://${blog.slug}.${this.config.serviceDomain}`;
  }

  /**
   * Every origin the blog is served on: its subdomain, and its custom domain while active (the
   * CDN holds copies under each). `hostnames` adds hosts it no longer has (a removed domain).
   */
  origins(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }, hostnames: readonly string[] = []): string[] {
    const all = [`${this.config.publicScheme}://${blog.slug}.${this.config.serviceDomain}`];
    if (blog.customDomain && blog.domainActive) all.push(`${this.config.publicScheme}://${blog.customDomain}`);
    for (const hostname of hostnames) all.push(`${this.config.publicScheme}://${hostname}`);
    return [...new Set(all)];
  }

  blog(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }): string {
    return `${this.origin(blog)}/`;
  }

  post(blog: { slug: string; customDomain?: string | null; domainActive?: boolean }, postSlug: string): string {
    return `${this.origin(blog)}/${encodeURIComponent(postSlug)}`;
  }
}
