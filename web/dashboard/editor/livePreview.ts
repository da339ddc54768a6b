/**
 * The Preview region: after a short pause in typing, POST /v1/preview renders the Markdown
 * exactly as the post's page will (sanitised by the server), and the region's frame shows it in
 * the blog's theme (previewFrameView.ts). Only the newest answer is shown.
 */
import { ApiError, api } from '../lib/api.js';
import type { PreviewFrameView } from './previewFrameView.js';

const PAUSE_MS = 600;

export class LivePreview {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #latest = 0;
  #pausedUntil = 0;
  #controller: AbortController | null = null;

  constructor(
    private readonly blogId: string,
    private readonly frame: PreviewFrameView,
    private readonly state: HTMLElement,
    private readonly title: () => string,
  ) {}

  /** The text changed: render it after the pause. */
  schedule(markdown: () => string): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.render(markdown()), Math.max(PAUSE_MS, this.#pausedUntil - Date.now()));
  }

  /** The title changed: no request, the frame shows it with the HTML it has. */
  retitle(): void {
    this.frame.retitle(this.title());
  }

  async render(markdown: string): Promise<void> {
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
      // The server's sanitised HTML, the same the published page will hold; the frame points its
      // root-relative image and link paths at the blog's host, as they are on the page.
      this.frame.show(answer.body.html, this.title(), answer.body.base_url);
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
      this.state.textContent = `The preview could not be updated: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
