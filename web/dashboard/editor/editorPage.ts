/**
 * The editor page: wires the fields, the autosave, the buttons and the dialogs to one
 * PostSession (docs/dashboard.md#writing). Each part lives in its own module; this one decides
 * what is shown for each status and in which order a button's calls go.
 */
import { api } from '../lib/api.js';
import { Autosave, type SaveStatus } from './autosave.js';
import { type CodeEditor, createCodeEditor } from './codeEditor.js';
import { showConflict } from './conflictAlert.js';
import { byId, clearAlert, showAlert } from './dom.js';
import { FieldsForm } from './fieldsForm.js';
import { HistoryDialog } from './historyDialog.js';
import { uploadImages } from './imageUpload.js';
import { LivePreview } from './livePreview.js';
import { PostSession } from './postSession.js';
import { PreviewFrameView } from './previewFrameView.js';
import { Scheduling } from './scheduling.js';
import { wireSharePreview } from './sharePreview.js';

const AUTOSAVE_MS = 2000;

const statusText: Record<SaveStatus, string> = {
  saved: 'All changes saved',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  failed: 'Not saved',
  conflict: 'Not saved: the post changed elsewhere',
};

export async function startEditor(main: HTMLElement): Promise<void> {
  const blogId = main.dataset.blogId ?? '';
  const slug = main.dataset.slug ?? slugFromPath(window.location.pathname);
  const session = new PostSession(blogId);
  const alerts = byId('editor-alerts');
  const saveState = byId('save-state');
  const buttons = {
    saveDraft: byId<HTMLButtonElement>('save-draft'),
    save: byId<HTMLButtonElement>('save-post'),
    publish: byId<HTMLButtonElement>('publish-post'),
    unpublish: byId<HTMLButtonElement>('unpublish-post'),
    history: byId<HTMLButtonElement>('history-open'),
    remove: byId<HTMLButtonElement>('delete-post'),
  };
  const liveLink = byId<HTMLAnchorElement>('live-link');
  let editor: CodeEditor | null = null;
  const content = (): CodeEditor => {
    if (!editor) throw new Error('the editor is not ready');
    return editor;
  };
  const form = new FieldsForm(content);
  const preview = new LivePreview(blogId, new PreviewFrameView(byId<HTMLIFrameElement>('preview-frame')), byId('preview-state'), () => form.title.value);
  form.title.addEventListener('input', () => preview.retitle());
  let blogUrl: string | null = null;
  let leaving = false;

  const autosave = new Autosave({
    delayMs: AUTOSAVE_MS,
    automatic: () => session.status !== 'published' && form.title.value.trim() !== '',
    save: async () => {
      const fields = form.read();
      if (fields.title.trim() === '') throw new Error('a post needs a title before it can be saved');
      const isNew = session.slug === null;
      const outcome = await session.save(fields);
      if (outcome === 'saved') afterSave(isNew);
      return outcome;
    },
    onStatus: (status, detail) => {
      saveState.textContent = detail ? `${statusText[status]}: ${detail}` : statusText[status];
      saveState.dataset.state = status;
      if (status === 'conflict') showConflict(conflictDeps);
      if (status === 'failed')
        showAlert(alerts, 'save', `Your changes were not saved: ${detail}. They are still here; saving is tried again with your next change.`, [
          { label: 'Try again', run: () => void autosave.flush() },
        ]);
      if (status === 'saved') clearAlert(alerts, 'save');
    },
  });

  const conflictDeps = {
    alerts,
    session,
    localText: () => content().text(),
    localTitle: () => form.title.value,
    reload: async () => {
      form.write(await session.load(session.slug ?? ''));
      autosave.reset();
      render();
      preview.schedule(() => content().text());
    },
    saveMine: async () => {
      const server = await session.read();
      // Their version becomes the base, so the save sends every field that differs from it.
      session.adopt(server.body, server.etag);
      autosave.resume();
      await autosave.flush();
    },
  };

  function afterSave(isNew: boolean): void {
    if (form.slug.value.trim() === '' || isNew) form.slug.value = session.base.slug;
    const path = `/dashboard/blogs/${encodeURIComponent(blogId)}/posts/${encodeURIComponent(session.slug ?? '')}`;
    if (window.location.pathname !== path) window.history.replaceState(null, '', path);
    render();
  }

  function render(): void {
    const status = session.status;
    byId('editor-heading').textContent = status === null ? 'New post' : 'Edit post';
    byId('post-status').textContent = status === null ? 'Not saved yet' : `Status: ${status}`;
    buttons.saveDraft.hidden = status === 'published' || status === 'scheduled';
    buttons.save.hidden = !buttons.saveDraft.hidden;
    buttons.publish.hidden = status === 'published';
    buttons.publish.textContent = status === 'scheduled' ? 'Publish now' : 'Publish';
    buttons.unpublish.hidden = status !== 'published' && status !== 'scheduled';
    buttons.history.hidden = status === null;
    buttons.remove.hidden = status === null;
    byId('schedule-heading').parentElement?.toggleAttribute('hidden', status === 'published');
    liveLink.hidden = status !== 'published' || blogUrl === null;
    if (blogUrl !== null && session.slug !== null) liveLink.href = `${blogUrl}${encodeURIComponent(session.slug)}`;
    scheduling.show(session.scheduledAt);
  }

  /** Saves what is unsaved, then runs `step`; a failed save (shown already) stops it. */
  async function savedThen(step: () => Promise<void>, button: HTMLButtonElement): Promise<void> {
    if (form.title.value.trim() === '') {
      showAlert(alerts, 'save', 'A post needs a title before it can be saved.');
      form.title.focus();
      return;
    }
    button.disabled = true;
    try {
      if (!(await autosave.flush())) return;
      await step();
      clearAlert(alerts, 'action');
    } catch (error) {
      showAlert(alerts, 'action', error instanceof Error ? error.message : String(error));
    } finally {
      button.disabled = false;
      render();
    }
  }

  const scheduling = new Scheduling({
    schedule: (utc) =>
      savedThen(async () => {
        await session.transition('schedule', { scheduled_at: utc });
        saveState.textContent = 'Scheduled';
      }, byId('schedule-post')),
  });
  const history = new HistoryDialog({
    blogId,
    postPath: () => session.path,
    currentText: () => content().text(),
    restore: async (revisionId) => {
      form.write(await session.restore(revisionId));
      autosave.reset();
      render();
      preview.schedule(() => content().text());
    },
  });

  buttons.saveDraft.addEventListener('click', () => void savedThen(async () => {}, buttons.saveDraft));
  buttons.save.addEventListener('click', () => void savedThen(async () => {}, buttons.save));
  buttons.publish.addEventListener(
    'click',
    () =>
      void savedThen(async () => {
        const answer = await session.transition('publish');
        if (answer.url) blogUrl = answer.url.slice(0, answer.url.length - encodeURIComponent(session.slug ?? '').length);
        saveState.textContent = 'Published';
      }, buttons.publish),
  );
  buttons.unpublish.addEventListener(
    'click',
    () =>
      void savedThen(async () => {
        await session.transition('unpublish');
        saveState.textContent = 'Unpublished: the post is a draft again';
      }, buttons.unpublish),
  );
  buttons.history.addEventListener('click', () => void history.open());
  buttons.remove.addEventListener('click', async () => {
    if (!window.confirm('Delete this post for good? Its page, and its place in lists, feeds and search, are removed.')) return;
    try {
      await session.remove();
      leaving = true;
      window.location.assign(`/dashboard/blogs/${encodeURIComponent(blogId)}/posts`);
    } catch (error) {
      showAlert(alerts, 'action', `Not deleted: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  wireSharePreview(
    blogId,
    () => (session.slug === null ? null : session.path),
    () => autosave.flush(),
  );
  window.addEventListener('beforeunload', (event) => {
    if (leaving || (!autosave.dirty && autosave.status !== 'saving')) return;
    event.preventDefault();
    // Older browsers show the dialog only when returnValue is set.
    event.returnValue = '';
  });

  const [blog] = await Promise.all([
    api<{ url: string }>(`/blogs/${encodeURIComponent(blogId)}`),
    scheduling.loadPlan(),
    slug === null ? null : session.load(slug),
  ]);
  blogUrl = blog.body.url;
  editor = createCodeEditor(byId('post-content'), {
    text: session.base.content,
    label: 'Content',
    describedBy: 'content-help',
    onChange: () => {
      autosave.changed();
      preview.schedule(() => content().text());
    },
    onFiles: (files, at) =>
      uploadImages(
        {
          blogId,
          editor: content,
          onAlert: (message) => showAlert(alerts, 'upload', message),
          onStatus: (message) => (byId('content-help').textContent = message || 'Markdown. Drop or paste images to upload them.'),
        },
        files,
        at,
      ),
  });
  form.write(session.base);
  form.onInput(() => autosave.changed());
  autosave.reset();
  saveState.textContent = slug === null ? '' : statusText.saved;
  render();
  byId('editor-loading').hidden = true;
  byId('editor').hidden = false;
  void preview.render(content().text());
}

/** `/dashboard/blogs/<id>/posts/<slug>` → the slug (`new` too); `…/new-post` (a new post) → null. */
export function slugFromPath(pathname: string): string | null {
  const match = /\/posts\/([^/]+)\/?$/.exec(pathname);
  if (!match?.[1]) return null;
  return decodeURIComponent(match[1]);
}
