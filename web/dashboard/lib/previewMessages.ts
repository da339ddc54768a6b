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
