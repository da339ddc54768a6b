/**
 * Serialised answers of `GET /v1/posts/:slug`, kept by the post's id and row version (its ETag):
 * a post is up to 1 MB of Markdown and several MB of HTML, and reading and serialising it again
 * for every read would dominate the API's hottest request. The version is read from the database on
 * every request (a small indexed read, no text), so an update by this process or another (the
 * CLI) is never answered from here: it names a new version. Only answers the caller was just
 * allowed to read are looked up, under a key no other post shares.
 *
 * Bounded by the characters held, least recently used out.
 */
export class AnswerCache {
  private readonly entries = new Map<string, string>();
  private chars = 0;

  constructor(
    /** Characters of JSON held at most (default 16 M, 16-32 MB of heap). */
    private readonly maxChars = 16 * 1024 * 1024,
    /** An answer larger than this is never kept (it would push out everything else). */
    private readonly maxEntryChars = 2 * 1024 * 1024,
  ) {}

  get(key: string): string | undefined {
    const json = this.entries.get(key);
    if (json === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, json);
    return json;
  }

  set(key: string, json: string): void {
    if (json.length > this.maxEntryChars || this.entries.has(key)) return;
    this.entries.set(key, json);
    this.chars += json.length;
    for (const [old, value] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(old);
      this.chars -= value.length;
    }
  }
}
