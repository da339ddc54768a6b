/** Small DOM helpers the editor's modules share. */

/** The element with this id in the editor's shell; a missing one is a template bug, said at once. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the editor's page has no #${id}`);
  return element as T;
}

export interface AlertAction {
  label: string;
  run: () => void;
}

/**
 * Shows a message with role `alert` (read out at once) and its buttons in `container`; the
 * returned function removes it. Each alert has a key, so the same trouble is shown once.
 */
export function showAlert(container: HTMLElement, key: string, message: string, actions: AlertAction[] = []): () => void {
  container.querySelector(`[data-alert="${key}"]`)?.remove();
  const box = document.createElement('div');
  box.setAttribute('role', 'alert');
  box.dataset.alert = key;
  box.className = 'editor-alert';
  const text = document.createElement('p');
  text.textContent = message;
  box.append(text);
  if (actions.length > 0) {
    const row = document.createElement('div');
    row.className = 'alert-actions';
    for (const action of actions) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.textContent = action.label;
      button.addEventListener('click', action.run);
      row.append(button);
    }
    box.append(row);
  }
  container.append(box);
  return () => box.remove();
}

export function clearAlert(container: HTMLElement, key: string): void {
  container.querySelector(`[data-alert="${key}"]`)?.remove();
}

/** A date for people: the browser's language and time zone. */
export function localDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
