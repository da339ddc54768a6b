/**
 * What every dashboard page loads: confirmation before destructive forms (`data-confirm`) and
 * copy buttons (`data-copy="<id of the element whose text is copied>"`). Pages add their own
 * entry beside it; the server never sends inline script (the CSP forbids it).
 */

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy ?? '');
  if (!source) return;
  const text = source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement ? source.value : (source.textContent ?? '');
  void navigator.clipboard.writeText(text.trim()).then(
    () => announce(button, 'Copied'),
    () => announce(button, 'Copy failed: select the text and copy it'),
  );
});

/** Says what happened in the button's live region, for sighted and screen-reader users alike. */
function announce(button: HTMLButtonElement, message: string): void {
  const status = button.parentElement?.querySelector('[role="status"]');
  if (status) status.textContent = message;
}
