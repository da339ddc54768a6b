/** Draws a lineDiff (textDiff.ts) as lines marked + and − for sight and for screen readers. */
import { type DiffLine, hasChanges } from './textDiff.js';

export function renderDiff(target: HTMLElement, lines: readonly DiffLine[], labels: { removed: string; added: string }): void {
  target.replaceChildren();
  if (!hasChanges(lines)) {
    const same = document.createElement('p');
    same.className = 'muted';
    same.textContent = 'No difference: the two texts are the same.';
    target.append(same);
    return;
  }
  const legend = document.createElement('p');
  legend.className = 'diff-legend muted';
  legend.textContent = `Lines marked − are only in ${labels.removed}; lines marked + are only in ${labels.added}.`;
  const list = document.createElement('pre');
  list.className = 'diff-lines';
  for (const line of lines) {
    const row = document.createElement('span');
    row.className = `diff-${line.kind}`;
    if (line.kind === 'folded') row.textContent = `  … ${line.count} unchanged line${line.count === 1 ? '' : 's'} …`;
    else {
      const sign = line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '− ' : '  ';
      row.textContent = `${sign}${line.text}`;
      if (line.kind !== 'same')
        row.setAttribute('aria-label', `${line.kind === 'added' ? `only in ${labels.added}` : `only in ${labels.removed}`}: ${line.text}`);
    }
    list.append(row, '\n');
  }
  target.append(legend, list);
}
