/** The editor's inputs as one PostFields value, read and written together. */
import type { CodeEditor } from './codeEditor.js';
import { byId } from './dom.js';
import type { PostFields } from './postFields.js';

export class FieldsForm {
  readonly title = byId<HTMLInputElement>('post-title');
  readonly tags = byId<HTMLInputElement>('post-tags');
  readonly slug = byId<HTMLInputElement>('post-slug');
  readonly description = byId<HTMLTextAreaElement>('post-description');
  readonly ogImage = byId<HTMLInputElement>('post-og-image');

  constructor(private readonly content: () => CodeEditor) {}

  read(): PostFields {
    return {
      title: this.title.value,
      content: this.content().text(),
      tags: this.tags.value,
      slug: this.slug.value,
      description: this.description.value,
      ogImage: this.ogImage.value,
    };
  }

  write(fields: PostFields): void {
    this.title.value = fields.title;
    this.tags.value = fields.tags;
    this.slug.value = fields.slug;
    this.description.value = fields.description;
    this.ogImage.value = fields.ogImage;
    if (this.content().text() !== fields.content) this.content().setText(fields.content);
  }

  /** Every input but Content (CodeMirror reports its own changes). */
  onInput(listener: () => void): void {
    for (const input of [this.title, this.tags, this.slug, this.description, this.ogImage]) input.addEventListener('input', listener);
  }
}
