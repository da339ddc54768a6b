/**
 * The script of the editor's preview frame (/dashboard/blogs/<id>/preview-frame): the blog's
 * theme around an empty post, filled with the HTML the editor sends. It takes messages from the
 * frame's parent only, and tells the parent when it is ready, so the parent sends (again) the
 * newest preview after every load of the frame. The frame is sandboxed (an opaque origin): it
 * never calls /v1 and holds no session; the HTML is the server's sanitised preview.
 */
import { onBlogHost } from '../lib/blogHost.js';
import type { PreviewLanguageMessage, PreviewMessage, PreviewReadyMessage } from '../lib/previewMessages.js';

const content = document.querySelector<HTMLElement>('article .post-content');
const title = document.querySelector<HTMLElement>('article .post-title');
let blogUrl: string | undefined;

function isPreview(data: unknown): data is PreviewMessage {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as Record<string, unknown>;
  return (
    message.type === 'folio-preview' &&
    typeof message.html === 'string' &&
    typeof message.title === 'string' &&
    (message.baseUrl === undefined || typeof message.baseUrl === 'string')
  );
}

/** The page's language as the published page's: by words, Korean when at least as many as Latin ones (src/domain/language.ts). */
function languageOf(text: string): 'ko' | 'en' {
  let korean = 0;
  let latin = 0;
  for (const word of text.split(/\s+/)) {
    if (/[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/.test(word)) korean += 1;
    else if (/[A-Za-z]/.test(word)) latin += 1;
  }
  return korean > 0 && korean >= latin ? 'ko' : 'en';
}

function show(message: PreviewMessage): void {
  if (!content) return;
  blogUrl = message.baseUrl;
  // The reader's place in the preview stays where it was while the text under it changes.
  const { scrollX, scrollY } = window;
  content.replaceChildren(onBlogHost(message.html, message.baseUrl));
  if (title) title.textContent = message.title;
  window.scrollTo(scrollX, scrollY);
  // The page's labels and dates are in the language the server rendered it for; a post in the
  // other one asks the editor for that page (it reloads the frame and sends the preview again).
  const lang = languageOf(`${message.title} ${content.textContent ?? ''}`);
  if (lang !== document.documentElement.lang && window.parent !== window) {
    window.parent.postMessage({ type: 'folio-preview-language', lang } satisfies PreviewLanguageMessage, window.location.origin);
  }
}

window.addEventListener('message', (event) => {
  // Only the editor that framed this page; `location.origin` is the URL's, the editor's origin.
  if (event.source !== window.parent || event.origin !== window.location.origin || !isPreview(event.data)) return;
  show(event.data);
});

// A link opens in a new tab on the blog's host (its pages are there, not on this host); links
// inside the page (a heading, a footnote) scroll the frame.
document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  const href = link?.getAttribute('href') ?? '';
  if (!link || href.startsWith('#')) return;
  event.preventDefault();
  const url = blogUrl ? new URL(href, blogUrl) : null;
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) window.open(url.href, '_blank', 'noopener');
});

if (window.parent !== window) window.parent.postMessage({ type: 'folio-preview-ready' } satisfies PreviewReadyMessage, window.location.origin);
