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
      const answer = await api<{ html: string }>('/preview', {
        method: 'POST',
        blogId: this.blogId,
        body: { content_md: markdown },
        signal: this.#controller.signal,
      });
      if (ticket !== this.#latest) return;
      // The server's sanitised HTML, the same the published page will hold.
      this.body.innerHTML = answer.body.html;
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
