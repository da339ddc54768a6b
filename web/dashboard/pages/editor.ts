/**
 * The post editor's entry (/dashboard/blogs/<blogId>/new-post and …/posts/<slug>): everything
 * is in web/dashboard/editor/; this starts it, or says in the page why it could not.
 */
import { startEditor } from '../editor/editorPage.js';

const main = document.getElementById('main');
if (main) {
  startEditor(main).catch((error: unknown) => {
    const loading = document.getElementById('editor-loading');
    if (!loading) return;
    loading.setAttribute('role', 'alert');
    loading.textContent = `The editor could not start: ${error instanceof Error ? error.message : String(error)}`;
  });
}
