/**
 * Share preview: POST /v1/posts/:slug/preview-link gives a private URL to the post as it is now;
 * the editor shows it in a read-only field with a copy button (the shell's `data-copy`).
 */
import { api } from '../lib/api.js';
import { byId, localDateTime } from './dom.js';

export function wireSharePreview(blogId: string, postPath: () => string | null, beforeShare: () => Promise<boolean>): void {
  const button = byId<HTMLButtonElement>('share-create');
  const result = byId('share-result');
  const field = byId<HTMLInputElement>('share-url');
  const expires = byId('share-expires');
  const state = byId('share-state');
  button.addEventListener('click', async () => {
    const path = postPath();
    if (path === null) {
      state.textContent = 'Save the post first: a preview link shows a saved post.';
      return;
    }
    if (!(await beforeShare())) {
      state.textContent = 'The post could not be saved, so no preview link was made.';
      return;
    }
    state.textContent = 'Making a preview link…';
    try {
      const answer = await api<{ url: string; expires_at: string }>(`${path}/preview-link`, { method: 'POST', blogId, body: {} });
      field.value = answer.body.url;
      expires.textContent = `The link works until ${localDateTime(answer.body.expires_at)}.`;
      result.hidden = false;
      state.textContent = 'Preview link ready.';
      field.focus();
      field.select();
    } catch (error) {
      state.textContent = `No preview link: ${error instanceof Error ? error.message : String(error)}`;
    }
  });
}
