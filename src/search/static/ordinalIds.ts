/**
 * The post id of every ordinal the static index has handed out since its last layout (a dead
 * one's is blanked; StaticState.dead says which are dead): what the writer needs to find a post's
 * entry when the post changes or goes. Kept in blocks of ID_BLOCK ordinals, each stored as its own
 * "\n"-joined file (staticFormat.ts, idBlockKey): a publish rewrites the one or two blocks it
 * touched, not the ids of the whole blog (3.8 MB at 100,000 posts, stringified and made durable
 * on every static write, was most of what made publishing there slower than at 1,000). A block
 * is a joined string, not an array: 50,000 strings parsed after a restart cost more to collect
 * than to parse. Ordinals handed out since a block was read are kept apart until it is joined.
 */
import { TextColumn } from '../../lib/textColumn.js';

/** Ordinals per stored block: about 150 KB of UUIDs. */
export const ID_BLOCK = 4096;

/** One block: its ids as read or last joined, the ones pushed since, the tag of its stored file (null: none yet), and whether it changed since. */
interface Block {
  column: TextColumn;
  added: string[];
  tag: string | null;
  changed: boolean;
}

export class OrdinalIds {
  private constructor(private readonly blocks: Block[]) {}

  /** The ids of ordinals 0, 1, … in order, none stored yet. */
  static of(ids: readonly string[]): OrdinalIds {
    const blocks: Block[] = [];
    for (let start = 0; start < ids.length; start += ID_BLOCK) {
      blocks.push({ column: TextColumn.of('', 0)!, added: ids.slice(start, start + ID_BLOCK), tag: null, changed: true });
    }
    return new OrdinalIds(blocks);
  }

  /**
   * The ids as one column holds them (`count` of them; a state stored before blocks), none stored
   * as blocks yet; null when it holds another number.
   */
  static parse(joined: string, count: number): OrdinalIds | null {
    const column = TextColumn.of(joined, count);
    if (!column) return null;
    const ids: string[] = [];
    for (let ordinal = 0; ordinal < count; ordinal++) ids.push(column.at(ordinal));
    return OrdinalIds.of(ids);
  }

  /**
   * The ids as stored blocks hold them: `blocks[i]` is block i's file and the tag it was stored
   * under. Null unless they hold `count` ids, every block but the last a full one.
   */
  static fromBlocks(blocks: readonly { joined: string; tag: string }[], count: number): OrdinalIds | null {
    if (blocks.length !== Math.ceil(count / ID_BLOCK)) return null;
    const read: Block[] = [];
    for (const [i, { joined, tag }] of blocks.entries()) {
      const column = TextColumn.of(joined, Math.min(ID_BLOCK, count - i * ID_BLOCK));
      if (!column) return null;
      read.push({ column, added: [], tag, changed: false });
    }
    return new OrdinalIds(read);
  }

  get length(): number {
    const last = this.blocks[this.blocks.length - 1];
    return last ? (this.blocks.length - 1) * ID_BLOCK + sizeOf(last) : 0;
  }

  at(ordinal: number): string {
    const block = this.blocks[Math.floor(ordinal / ID_BLOCK)]!;
    const at = ordinal % ID_BLOCK;
    return at < block.column.length ? block.column.at(at) : block.added[at - block.column.length]!;
  }

  /** Hands out the next ordinal to `id`. */
  push(id: string): number {
    let last = this.blocks[this.blocks.length - 1];
    if (!last || sizeOf(last) === ID_BLOCK) this.blocks.push((last = { column: TextColumn.of('', 0)!, added: [], tag: null, changed: true }));
    last.added.push(id);
    last.changed = true;
    return this.length - 1;
  }

  /**
   * Forgets the id of a dead ordinal: the state may sit in a public bucket, and it names only
   * published posts (docs/search.md). An edited post's new ordinal keeps its id.
   */
  clear(ordinal: number): void {
    const block = this.blocks[Math.floor(ordinal / ID_BLOCK)]!;
    const at = ordinal % ID_BLOCK;
    // Dashes of the id's width, as TextColumn.blanked: a column of one width stays one.
    if (at >= block.column.length) block.added[at - block.column.length] = '-'.repeat(block.added[at - block.column.length]!.length);
    else block.column = block.column.blanked(at);
    block.changed = true;
  }

  /** The last ordinal handed out to `id`, or -1: a post's live entry, if it has one, is its last. */
  lastOrdinalOf(id: string): number {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const block = this.blocks[i]!;
      const added = block.added.lastIndexOf(id);
      const at = added >= 0 ? block.column.length + added : block.column.lastIndexOf(id);
      if (at >= 0) return i * ID_BLOCK + at;
    }
    return -1;
  }

  /**
   * The blocks changed since they were stored (or never stored), each joined by "\n" as its file
   * holds it, with the tag of the file it replaces (null: none).
   */
  changed(): { block: number; joined: string; replaces: string | null }[] {
    const changed: { block: number; joined: string; replaces: string | null }[] = [];
    for (const [i, block] of this.blocks.entries()) if (block.changed) changed.push({ block: i, joined: joinedOf(block), replaces: block.tag });
    return changed;
  }

  /** Records that the changed blocks are now stored under `tag`. */
  stored(tag: string): void {
    for (const block of this.blocks) {
      if (!block.changed) continue;
      block.tag = tag;
      block.changed = false;
    }
  }

  /** Each block's stored tag, or null where the block changed since (or was never stored). */
  tags(): (string | null)[] {
    return this.blocks.map((block) => (block.changed ? null : block.tag));
  }
}

function sizeOf(block: Block): number {
  return block.column.length + block.added.length;
}

/** The block's ids in one column, the pushed ones joined on. */
function joinedOf(block: Block): string {
  if (block.added.length > 0) {
    const joined = block.column.length === 0 ? block.added.join('\n') : `${block.column.joined}\n${block.added.join('\n')}`;
    block.column = TextColumn.of(joined, sizeOf(block))!;
    block.added = [];
  }
  return block.column.joined;
}
