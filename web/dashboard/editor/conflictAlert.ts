/**
 * What a 412 shows: the post changed elsewhere since the editor loaded it. The author's text
 * stays in the editor, unsaved, until they choose: Reload (take the server's version), Show
 * difference (theirs on the server against ours), or Save mine (overwrite, knowingly).
 */
import { renderDiff } from './diffView.js';
import { clearAlert, showAlert } from './dom.js';
import type { PostSession } from './postSession.js';
import { lineDiff } from './textDiff.js';

export interface ConflictDeps {
  alerts: HTMLElement;
  session: PostSession;
  localText: () => string;
  localTitle: () => string;
  reload: () => Promise<void>;
  saveMine: () => Promise<void>;
}

const KEY = 'conflict';

export function showConflict(deps: ConflictDeps): void {
  showAlert(
    deps.alerts,
    KEY,
    'This post was changed somewhere else since you opened it, so your changes were not saved. Your text is still here: reload the saved version, compare the two, or save yours over it.',
    [
      { label: 'Reload', run: () => void reload(deps) },
      { label: 'Show difference', run: () => void showDifference(deps) },
      { label: 'Save mine', run: () => void saveMine(deps) },
    ],
  );
}

async function reload(deps: ConflictDeps): Promise<void> {
  if (!window.confirm('Reload the saved version? Your unsaved text in this editor will be replaced.')) return;
  await deps.reload();
  clearAlert(deps.alerts, KEY);
}

async function saveMine(deps: ConflictDeps): Promise<void> {
  if (!window.confirm('Save your version over the one saved elsewhere? Theirs stays in the History.')) return;
  await deps.saveMine();
  clearAlert(deps.alerts, KEY);
}

async function showDifference(deps: ConflictDeps): Promise<void> {
  const box = deps.alerts.querySelector<HTMLElement>(`[data-alert="${KEY}"]`);
  if (!box) return;
  let view = box.querySelector<HTMLElement>('.diff');
  if (!view) {
    view = document.createElement('div');
    view.className = 'diff';
    view.tabIndex = 0;
    view.setAttribute('aria-label', 'Difference between the saved version and yours');
    box.append(view);
  }
  try {
    const server = await deps.session.read();
    const titleNote = server.body.title !== deps.localTitle() ? `Title saved: “${server.body.title}”; yours: “${deps.localTitle()}”.` : '';
    renderDiff(view, lineDiff(server.body.content_md, deps.localText()), { removed: 'the saved version', added: 'your text' });
    if (titleNote) {
      const note = document.createElement('p');
      note.textContent = titleNote;
      view.prepend(note);
    }
    view.focus();
  } catch (error) {
    view.textContent = `The saved version could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}
