/**
 * What a person does in the dashboard's Content field (a CodeMirror 6 editor in a shadow root),
 * for the Chromium suites: read its text, type Hangul through an input method, paste a file.
 */
import type { Page } from 'playwright-core';

/** The Content field's text, line by line as CodeMirror draws it (the test posts are short). */
export function editorText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const content = document.getElementById('post-content')?.shadowRoot?.querySelector('.cm-content');
    if (!content || content.querySelector('.cm-placeholder')) return '';
    return Array.from(content.querySelectorAll('.cm-line'), (line) => line.textContent ?? '').join('\n');
  });
}

/** Types 한글 as an input method composes it (jamo, then syllables, then the committed word), at the cursor. */
export async function composeHangul(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  for (const step of ['ㅎ', '하', '한', '한ㄱ', '한그', '한글'])
    await cdp.send('Input.imeSetComposition', { text: step, selectionStart: step.length, selectionEnd: step.length });
  await cdp.send('Input.insertText', { text: '한글' });
}

/** Pastes a file into the Content field as the clipboard would hand it over (a screenshot, say). */
export async function pasteFile(page: Page, file: { name: string; type: string; base64: string }): Promise<void> {
  await page.evaluate(({ name, type, base64 }) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], name, { type }));
    const target = document.getElementById('post-content')?.shadowRoot?.querySelector('.cm-content');
    target?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, file);
}
