/**
 * The live preview's HTML on the blog's host: the server's HTML names the blog's media by
 * root-relative paths (`/media/…`), as the published page does, and the preview is shown on the
 * API host. Imported by the preview frame alone, whose script must stay one file (its CSP names
 * only that file): an entry of the editor importing it too would split it into a shared chunk.
 */

/**
 * The preview's nodes, parsed in a <template> (whose images do not load) so that `/media/…`
 * paths are made absolute on the blog's host before the browser asks this host for them.
 */
export function onBlogHost(html: string, baseUrl: string | undefined): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = html;
  if (!baseUrl) return template.content;
  const absolute = (path: string): string => (path.startsWith('/') && !path.startsWith('//') ? new URL(path, baseUrl).href : path);
  for (const element of template.content.querySelectorAll<HTMLElement>('[src], [srcset], a[href]')) {
    const src = element.getAttribute('src');
    if (src) element.setAttribute('src', absolute(src));
    const srcset = element.getAttribute('srcset');
    if (srcset) {
      const candidates = srcset.split(',').map((candidate) => {
        const [url = '', ...descriptor] = candidate.trim().split(/\s+/);
        return [absolute(url), ...descriptor].join(' ');
      });
      element.setAttribute('srcset', candidates.join(', '));
    }
    const href = element.getAttribute('href');
    if (href && element.tagName === 'A') element.setAttribute('href', absolute(href));
  }
  return template.content;
}
