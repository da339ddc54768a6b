/**
 * A readable difference between two versions of a post (theirs on the server, ours in the
 * editor): whole lines added and removed, with long unchanged stretches folded to a few lines
 * of context. No DOM: diffView.ts draws it; test/unit/dashboard/textDiff.test.ts checks it.
 */
import { diffLines } from 'diff';

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string } | { kind: 'folded'; count: number };

/** Lines from `before` to `after`; runs of unchanged lines longer than 2 × context are folded. */
export function lineDiff(before: string, after: string, context = 2): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    for (const line of text.split('\n')) lines.push({ kind, text: line });
  }
  return fold(lines, context);
}

/** Whether the two texts differ at all (the diff view says so instead of showing nothing). */
export function hasChanges(lines: readonly DiffLine[]): boolean {
  return lines.some((line) => line.kind === 'added' || line.kind === 'removed');
}

function fold(lines: DiffLine[], context: number): DiffLine[] {
  const out: DiffLine[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]?.kind !== 'same') {
      out.push(lines[i] as DiffLine);
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end]?.kind === 'same') end++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = end === lines.length ? 0 : context;
    if (end - i > keepBefore + keepAfter + 1) {
      out.push(...lines.slice(i, i + keepBefore));
      out.push({ kind: 'folded', count: end - i - keepBefore - keepAfter });
      out.push(...lines.slice(end - keepAfter, end));
    } else out.push(...lines.slice(i, end));
    i = end;
  }
  return out;
}
