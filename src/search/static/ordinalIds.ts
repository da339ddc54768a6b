/**
 * The post id of every ordinal the static index has handed out since its last layout (a dead
 * one's is blanked; StaticState.dead says which are dead): what the writer needs to find a post's
 * entry when the post changes or goes. Stored as one "\n"-joined string, not an array: the state of a 50,000-post blog
 * is read on its first publish after a restart, and 50,000 strings parsed then cost more to
 * collect than to parse. Ordinals handed out since the state was read are kept apart until the
 * next write joins them on.
 */
import { TextColumn } from '../../lib/textColumn.js';

export class OrdinalIds {
  private constructor(
    private column: TextColumn,
    private added: string[],
  ) {}

  /** The ids of ordinals 0, 1, … in order. */
  static of(ids: readonly string[]): OrdinalIds {
    return new OrdinalIds(TextColumn.of('', 0)!, [...ids]);
  }

  /** The ids as `joined` holds them (`count` of them); null when it holds another number. */
  static parse(joined: string, count: number): OrdinalIds | null {
    const column = TextColumn.of(joined, count);
    return column ? new OrdinalIds(column, []) : null;
  }

  get length(): number {
    return this.column.length + this.added.length;
  }

  at(ordinal: number): string {
    return ordinal < this.column.length ? this.column.at(ordinal) : this.added[ordinal - this.column.length]!;
  }

  /** Hands out the next ordinal to `id`. */
  push(id: string): number {
    this.added.push(id);
    return this.length - 1;
  }

  /**
   * Forgets the id of a dead ordinal: the state may sit in a public bucket, and it names only
   * published posts (docs/search.md). An edited post's new ordinal keeps its id.
   */
  clear(ordinal: number): void {
    // Dashes of the id's width, as TextColumn.blanked: a column of one width stays one.
    const at = ordinal - this.column.length;
    if (at >= 0) this.added[at] = '-'.repeat(this.added[at]!.length);
    else this.column = this.column.blanked(ordinal);
  }

  /** The last ordinal handed out to `id`, or -1: a post's live entry, if it has one, is its last. */
  lastOrdinalOf(id: string): number {
    const added = this.added.lastIndexOf(id);
    return added >= 0 ? this.column.length + added : this.column.lastIndexOf(id);
  }

  /** The stored form: every id joined by "\n". */
  joined(): string {
    if (this.added.length > 0) {
      const joined = this.column.length === 0 ? this.added.join('\n') : `${this.column.joined}\n${this.added.join('\n')}`;
      this.column = TextColumn.of(joined, this.length)!;
      this.added = [];
    }
    return this.column.joined;
  }
}
