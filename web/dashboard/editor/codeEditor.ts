/**
 * The Content field: CodeMirror 6 with Markdown highlighting, undo/redo and line wrapping.
 * It lives in a shadow root because CodeMirror's styles then go to a constructed stylesheet,
 * which the dashboard's CSP (`style-src 'self'`, no inline `<style>`) lets through; its look
 * is an EditorView.theme drawn from the page's colour variables, which cross the shadow edge.
 * Tab is not bound, so keyboard users can leave the field; Ctrl/Cmd-Z undoes, Ctrl-Y (Cmd-Shift-Z) redoes.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Annotation, EditorState, Transaction } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { tags } from '@lezer/highlight';

export interface CodeEditor {
  readonly view: EditorView;
  text(): string;
  /** Replaces the whole text (a reload); not an undoable edit of the author's. */
  setText(text: string): void;
  /** Inserts at `at` (a drop's position) or else at the cursor, over the selection. */
  insert(text: string, at: number | null): void;
  /** Replaces the first occurrence of `find`; false when the author removed it meanwhile. */
  replace(find: string, replacement: string): boolean;
  focus(): void;
}

export interface CodeEditorOptions {
  text: string;
  label: string;
  describedBy?: string;
  onChange: () => void;
  /** Image files dropped or pasted into the editor; true when they were taken. */
  onFiles: (files: File[], at: number | null) => boolean;
}

/** Marks a reload's replacement, which is not an edit of the author's. */
const reloadMark = Annotation.define<boolean>();

const highlight = HighlightStyle.define([
  { tag: tags.heading, fontWeight: '700', color: 'var(--accent)' },
  { tag: tags.strong, fontWeight: '700' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: [tags.link, tags.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: tags.monospace, fontFamily: 'ui-monospace, "D2Coding", monospace' },
  { tag: [tags.quote, tags.comment], color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [tags.processingInstruction, tags.meta, tags.contentSeparator, tags.list], color: 'var(--muted)' },
]);

const theme = EditorView.theme({
  '&': { color: 'var(--fg)', backgroundColor: 'var(--bg)', border: '1px solid var(--line)', borderRadius: 'var(--radius)', minHeight: '20rem' },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, "D2Coding", "Noto Sans Mono CJK KR", monospace', lineHeight: '1.6', minHeight: '20rem' },
  '.cm-content': { padding: '0.6rem', caretColor: 'var(--fg)' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'color-mix(in srgb, var(--accent) 30%, transparent)' },
  '.cm-placeholder': { color: 'var(--muted)' },
});

function imageFiles(list: FileList | null | undefined): File[] {
  return Array.from(list ?? []).filter((file) => file.type.startsWith('image/'));
}

export function createCodeEditor(host: HTMLElement, options: CodeEditorOptions): CodeEditor {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const contentAttributes: Record<string, string> = { 'aria-label': options.label, 'aria-multiline': 'true' };
  if (options.describedBy) host.setAttribute('aria-describedby', options.describedBy);
  const view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        markdown(),
        syntaxHighlighting(highlight),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of(contentAttributes),
        placeholder('Write in Markdown. Drop or paste images to upload them.'),
        theme,
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.every((tr) => tr.annotation(reloadMark))) options.onChange();
        }),
        EditorView.domEventHandlers({
          paste: (event) => {
            const files = imageFiles(event.clipboardData?.files);
            if (files.length === 0) return false;
            event.preventDefault();
            return options.onFiles(files, null);
          },
          drop: (event, v) => {
            const files = imageFiles(event.dataTransfer?.files);
            if (files.length === 0) return false;
            event.preventDefault();
            return options.onFiles(files, v.posAtCoords({ x: event.clientX, y: event.clientY }));
          },
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: reloadMark.of(true) }),
    insert: (text, at) => {
      const { from, to } = at === null ? view.state.selection.main : { from: at, to: at };
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length }, scrollIntoView: true });
    },
    replace: (find, replacement) => {
      const at = view.state.doc.toString().indexOf(find);
      if (at < 0) return false;
      // Not an undo step of its own: undo must never bring an "Uploading…" placeholder back.
      view.dispatch({ changes: { from: at, to: at + find.length, insert: replacement }, annotations: Transaction.addToHistory.of(false) });
      return true;
    },
    focus: () => view.focus(),
  };
}
