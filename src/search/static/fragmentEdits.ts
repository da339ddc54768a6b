/** The fragment files one write of the static index reads and edits, each read once. */
import type { SiteStore } from '../../storage/siteStore.js';
import { FRAGMENT_SIZE, fragmentKey, type FragmentFile } from './staticFormat.js';

export class FragmentEdits {
  private readonly files = new Map<number, FragmentFile>();

  constructor(
    private readonly store: SiteStore,
    private readonly blogSlug: string,
  ) {}

  /** The fragment holding this ordinal, read on first use. */
  async of(ordinal: number): Promise<FragmentFile> {
    const index = Math.floor(ordinal / FRAGMENT_SIZE);
    let file = this.files.get(index);
    if (!file) {
      const body = await this.store.getBody(fragmentKey(this.blogSlug, index));
      file = body ? (JSON.parse(body.toString('utf8')) as FragmentFile) : {};
      this.files.set(index, file);
    }
    return file;
  }

  edited(): [string, FragmentFile][] {
    return [...this.files].map(([index, file]) => [fragmentKey(this.blogSlug, index), file]);
  }
}
