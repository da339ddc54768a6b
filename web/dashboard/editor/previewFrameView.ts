/**
 * The editor's side of the preview frame (web/dashboard/pages/previewFrame.ts): it keeps the
 * newest preview, sends it at once, and sends it again whenever the frame says it is ready —
 * after its first load and after any reload — so a preview made while the frame loads is never
 * lost. The frame may be ready before this page's script runs (its script is smaller), so the
 * first sending does not wait for a ready message that may have come before anyone listened.
 */
import type { PreviewLanguageMessage, PreviewMessage } from '../lib/previewMessages.js';

export class PreviewFrameView {
  #latest: PreviewMessage | null = null;

  constructor(private readonly frame: HTMLIFrameElement) {
    window.addEventListener('message', (event) => {
      // The frame is sandboxed, so its messages come from the opaque origin `null`: who sent one
      // is told by its window, the frame's own.
      if (event.source !== frame.contentWindow) return;
      if (isLanguage(event.data)) this.#relabel(event.data.lang);
      else if (isReady(event.data)) this.#send();
    });
  }

  show(html: string, title: string, baseUrl: string | undefined): void {
    this.#latest = { type: 'folio-preview', html, title, ...(baseUrl ? { baseUrl } : {}) };
    this.#send();
  }

  /** The title changed: the frame shows it at once with the HTML it has. */
  retitle(title: string): void {
    if (!this.#latest) return;
    this.#latest = { ...this.#latest, title };
    this.#send();
  }

  /** Reloads the frame's page for the post's language; its ready message sends the preview again. */
  #relabel(lang: 'ko' | 'en'): void {
    const url = new URL(this.frame.src, window.location.href);
    if ((url.searchParams.get('lang') ?? 'en') === lang) return;
    if (lang === 'en') url.searchParams.delete('lang');
    else url.searchParams.set('lang', lang);
    this.frame.src = url.href;
  }

  #send(): void {
    // `*`: an opaque origin cannot be named. The frame's document is only ever its own page: its
    // links open new tabs and it has no forms (form-action 'none'), so nothing else receives it.
    if (this.#latest) this.frame.contentWindow?.postMessage(this.#latest, '*');
  }
}

function isReady(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as Record<string, unknown>).type === 'folio-preview-ready';
}

function isLanguage(data: unknown): data is PreviewLanguageMessage {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as Record<string, unknown>;
  return message.type === 'folio-preview-language' && (message.lang === 'ko' || message.lang === 'en');
}
