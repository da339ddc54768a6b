/**
 * The examples of the preview operations (the editor's live preview, preview links), a part of
 * OPERATION_EXAMPLES (examples.ts) kept apart so that file stays readable.
 */
import { SITE } from './exampleValues.js';

export const PREVIEW_EXAMPLES = {
  previewContent: {
    request: { content_md: '## 숫돌 고르기\n\nThree stones and ten minutes.\n\n![A chisel](/media/3f9a1c2b.jpg)' },
    response: {
      html: '<h2 id="숫돌-고르기">숫돌 고르기</h2>\n<p>Three stones and ten minutes.</p>\n<p><img src="/media/3f9a1c2b.jpg" alt="A chisel" loading="lazy"></p>',
      base_url: SITE,
    },
  },
  createPreviewLink: {
    request: { expires_in: 86_400 },
    response: { url: 'https://api.example.com/preview/h2Q0m3Yd8yK1cVbXwzP7r5fN4tGsLa9uEoJiHkT6qWe', expires_at: '2026-03-05T09:30:00.000Z' },
  },
  openPreviewLink: {
    response:
      '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Sharpening a chisel · Field Notes</title>\n<meta name="robots" content="noindex, nofollow">\n…',
  },
  getPreviewAsset: { response: ':root{color-scheme:light dark}…' },
} as const;
