/**
 * Images dropped or pasted into the Content field: each is uploaded with POST /v1/media while a
 * placeholder holds its place at the cursor; the answer's URL replaces the placeholder with the
 * Markdown image, and a failed upload removes the placeholder and says why in an alert.
 */
import { api } from '../lib/api.js';
import type { CodeEditor } from './codeEditor.js';

let uploads = 0;

export interface ImageUploadDeps {
  blogId: string;
  editor: () => CodeEditor;
  onAlert: (message: string) => void;
  onStatus: (message: string) => void;
}

/** The alt text a file name gives: `sunset-over-han-river.png` → `sunset over han river`. */
function altOf(file: File): string {
  const stem = file.name
    .replace(/\.[a-z0-9]+$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  // A pasted screenshot's name says nothing ("image"); the author can write one later.
  return stem === '' || /^image( \d+)?$/i.test(stem) ? 'Image' : stem.replace(/[[\]]/g, '');
}

export function uploadImages(deps: ImageUploadDeps, files: File[], at: number | null): boolean {
  let position = at;
  for (const file of files) {
    const placeholder = `![Uploading ${altOf(file)} (${++uploads})…]()`;
    deps.editor().insert(`${placeholder}\n`, position);
    position = null;
    deps.onStatus(`Uploading ${file.name || 'the image'}…`);
    void upload(deps, file, placeholder);
  }
  return true;
}

async function upload(deps: ImageUploadDeps, file: File, placeholder: string): Promise<void> {
  try {
    const answer = await api<{ url: string }>('/media', { method: 'POST', blogId: deps.blogId, body: file, headers: { 'Content-Type': file.type } });
    deps.editor().replace(placeholder, `![${altOf(file)}](${answer.body.url})`);
    deps.onStatus(`Uploaded ${file.name || 'the image'}.`);
  } catch (error) {
    deps.editor().replace(`${placeholder}\n`, '') || deps.editor().replace(placeholder, '');
    deps.onStatus('');
    deps.onAlert(`The image ${file.name || ''} could not be uploaded: ${error instanceof Error ? error.message : String(error)}`);
  }
}
