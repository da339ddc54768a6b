/**
 * The History dialog: the post's revisions newest first (date and title); choosing one shows
 * what it would change against the text in the editor, and Restore (after a confirmation)
 * calls the restore operation, whose answer the editor then shows.
 */
import { api } from '../lib/api.js';
import { renderDiff } from './diffView.js';
import { byId, localDateTime } from './dom.js';
import { lineDiff } from './textDiff.js';

interface RevisionSummary {
  id: string;
  created_at: string;
  title: string;
  content_length: number;
}

export interface HistoryDeps {
  blogId: string;
  postPath: () => string;
  currentText: () => string;
  restore: (revisionId: string) => Promise<void>;
}

export class HistoryDialog {
  readonly #dialog = byId<HTMLDialogElement>('history');
  readonly #list = byId<HTMLOListElement>('history-list');
  readonly #diff = byId('history-diff');
  readonly #restore = byId<HTMLButtonElement>('history-restore');
  readonly #state = byId('history-state');
  #chosen: RevisionSummary | null = null;

  constructor(private readonly deps: HistoryDeps) {
    byId('history-close').addEventListener('click', () => this.#dialog.close());
    this.#restore.addEventListener('click', () => void this.#restoreChosen());
  }

  async open(): Promise<void> {
    this.#chosen = null;
    this.#diff.hidden = true;
    this.#restore.hidden = true;
    this.#list.replaceChildren();
    this.#state.textContent = 'Loading the revisions…';
    this.#dialog.showModal();
    try {
      const answer = await api<{ data: RevisionSummary[] }>(`${this.deps.postPath()}/revisions`, { blogId: this.deps.blogId, query: { per_page: 100 } });
      this.#state.textContent =
        answer.body.data.length === 0 ? 'No revisions yet.' : `${answer.body.data.length} revision${answer.body.data.length === 1 ? '' : 's'}, newest first.`;
      for (const revision of answer.body.data) this.#list.append(this.#item(revision));
      this.#list.querySelector('button')?.focus();
    } catch (error) {
      this.#state.textContent = `The revisions could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  #item(revision: RevisionSummary): HTMLLIElement {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary revision';
    const when = document.createElement('time');
    when.dateTime = revision.created_at;
    when.textContent = localDateTime(revision.created_at);
    const title = document.createElement('span');
    title.className = 'revision-title';
    title.textContent = revision.title;
    button.append(when, ' — ', title);
    button.addEventListener('click', () => void this.#choose(revision, button));
    item.append(button);
    return item;
  }

  async #choose(revision: RevisionSummary, button: HTMLButtonElement): Promise<void> {
    for (const other of this.#list.querySelectorAll('button')) other.removeAttribute('aria-pressed');
    button.setAttribute('aria-pressed', 'true');
    this.#state.textContent = 'Loading the revision…';
    try {
      const answer = await api<{ content_md: string; title: string }>(`${this.deps.postPath()}/revisions/${encodeURIComponent(revision.id)}`, {
        blogId: this.deps.blogId,
      });
      this.#chosen = revision;
      renderDiff(this.#diff, lineDiff(this.deps.currentText(), answer.body.content_md), { removed: 'the current text', added: 'this revision' });
      this.#diff.hidden = false;
      this.#restore.hidden = false;
      this.#state.textContent = `Revision of ${localDateTime(revision.created_at)}: “${answer.body.title}”.`;
    } catch (error) {
      this.#state.textContent = `The revision could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  async #restoreChosen(): Promise<void> {
    const chosen = this.#chosen;
    if (!chosen) return;
    if (
      !window.confirm(`Restore the revision of ${localDateTime(chosen.created_at)}? Its title and text replace the current ones (which stay in the history).`)
    )
      return;
    this.#state.textContent = 'Restoring…';
    try {
      await this.deps.restore(chosen.id);
      this.#dialog.close();
    } catch (error) {
      this.#state.textContent = `The revision could not be restored: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
