/**
 * The messages between the editor and its preview frame (web/dashboard/pages/previewFrame.ts).
 * Types only: the frame's script must stay one self-contained file (its CSP names that file
 * alone), so code the editor's entry also imports would become a shared chunk it cannot load.
 */

/** Editor → frame: the newest preview. `baseUrl`: the blog's origin, for root-relative paths. */
export interface PreviewMessage {
  type: 'folio-preview';
  html: string;
  title: string;
  baseUrl?: string;
}

/** Frame → editor: the frame's document is ready for (again) the newest preview. */
export interface PreviewReadyMessage {
  type: 'folio-preview-ready';
}

/**
 * Frame → editor: the post shown is in `lang`, the frame's page in the other language: the editor
 * reloads the frame for `lang` (its labels and date format are the theme's, rendered by the server).
 */
export interface PreviewLanguageMessage {
  type: 'folio-preview-language';
  lang: 'ko' | 'en';
}
