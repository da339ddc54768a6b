/**
 * The Preview region: after a short pause in typing, POST /v1/preview renders the Markdown
 * exactly as the post's page will (sanitised by the server), and the region shows it. Only the
 * newest answer is shown; a server without the operation gets one clear sentence instead.
 */
import { ApiError, api } from '../lib/api.js';

const PAUSE_MS = 600;

export class LivePreview {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #latest = 0;
  #unavailable = false;
  #pausedUntil = 0;
  #controller: AbortController | null = null;

  constructor(
    private readonly blogId: string,
    private readonly body: HTMLElement,
    private readonly state: HTMLElement,
  ) {}

  /** The text changed: render it after the pause. */
  schedule(markdown: () => string): void {
    if (this.#unavailable) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.render(markdown()), Math.max(PAUSE_MS, this.#pausedUntil - Date.now()));
  }

  async render(markdown: string): Promise<void> {
    if (this.#unavailable) return;
    const ticket = ++this.#latest;
    this.#controller?.abort();
    this.#controller = new AbortController();
    this.state.textContent = 'Updating the preview…';
    try {
      const answer = await api<{ html: string; base_url?: string }>('/preview', {
        method: 'POST',
        blogId: this.blogId,
        body: { content_md: markdown },
        signal: this.#controller.signal,
      });
      if (ticket !== this.#latest) return;
      // The server's sanitised HTML, the same the published page will hold, with its
      // root-relative image and link paths pointing at the blog's host, as they do on the page.
      this.body.replaceChildren(onBlogHost(answer.body.html, answer.body.base_url));
      this.state.textContent = '';
    } catch (error) {
      if (ticket !== this.#latest || (error instanceof DOMException && error.name === 'AbortError')) return;
      if (error instanceof ApiError && error.status === 429) {
        // The account's hourly request budget is spent: wait as told rather than spend more of it.
        const seconds = Number(error.headers.get('retry-after')) || 60;
        this.#pausedUntil = Date.now() + seconds * 1000;
        this.state.textContent = `The preview is paused: this account has used its API requests for now. It resumes in ${Math.ceil(seconds / 60)} min.`;
        return;
      }
      if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
        this.#unavailable = true;
        this.state.textContent = 'The live preview is not available on this server (it has no POST /v1/preview). The post itself saves and publishes as usual.';
        return;
      }
      this.state.textContent = `The preview could not be updated: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}

/**
 * The preview's nodes, parsed in a <template> (whose images do not load) so that `/media/…`
 * paths are made absolute on the blog's host before the browser asks this host for them.
 */
function onBlogHost(html: string, baseUrl: string | undefined): DocumentFragment {
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
