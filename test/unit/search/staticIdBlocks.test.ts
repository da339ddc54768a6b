/**
 * The static index writer's ids stored in blocks (ordinalIds.ts): a publish into a big blog
 * rewrites the one block it touched, never the ids of the whole blog; a state stored before
 * blocks is read and stored as blocks by its next write; a write cut short leaves nothing a later
 * write keeps; a block gone makes the writer lay the index out afresh.
 */
import { describe, expect, it } from 'vitest';
import { ID_BLOCK } from '../../../src/search/static/ordinalIds.js';
import { idBlockKey, idBlockPrefix, stateKey } from '../../../src/search/static/staticFormat.js';
import { StaticIndexWriter } from '../../../src/search/static/staticIndexWriter.js';
import type { SearchDocument } from '../../../src/search/searchTypes.js';
import { MemorySiteStore } from '../../support/memorySiteStore.js';
import { readStaticIndex } from '../../support/staticSearchIndex.js';
import { searchDoc } from './docFactory.js';

const writer = (s: MemorySiteStore) => new StaticIndexWriter(s, { cacheControl: 'public, max-age=60' });
const docOf = (i: number): SearchDocument =>
  searchDoc({
    id: `post-${String(i).padStart(6, '0')}`,
    title: `word${i % 13} title`,
    body: `body ${i % 7}`,
    publishedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
  });

async function stateOf(s: MemorySiteStore, blog: string): Promise<{ idBlocks?: string[]; idColumn?: string; next: number }> {
  return JSON.parse((await s.get(stateKey(blog)))!.body.toString('utf8'));
}

async function freshIndex(docs: readonly SearchDocument[], blog: string) {
  const fresh = new MemorySiteStore();
  await writer(fresh).rebuild(blog, docs);
  return readStaticIndex(fresh, blog);
}

describe('the static index writer’s id blocks', () => {
  it('a publish into a blog of more than a block stores only the block it touched, and deletes the one it replaces', async () => {
    const s = new MemorySiteStore();
    const w = writer(s);
    const docs = Array.from({ length: ID_BLOCK + 50 }, (_, i) => docOf(i));
    await w.rebuild('big', docs);
    const laidOut = await stateOf(s, 'big');
    expect(laidOut.idBlocks).toHaveLength(2);
    expect(laidOut.idColumn).toBeUndefined();

    s.resetCalls();
    const added = docOf(ID_BLOCK + 50);
    await w.upsert('big', [added]);
    const ids = s.calls.put.filter((key) => key.startsWith(idBlockPrefix('big')));
    const after = await stateOf(s, 'big');
    // The first block is the laid-out one still; the last one is stored anew under the write's tag.
    expect(after.idBlocks![0]).toBe(laidOut.idBlocks![0]);
    expect(ids).toEqual([idBlockKey('big', 1, after.idBlocks![1]!)]);
    expect((await s.list(idBlockPrefix('big'))).sort()).toEqual(after.idBlocks!.map((tag, block) => idBlockKey('big', block, tag)).sort());

    // An edit of a post in the first block blanks its id there: that block is stored anew too.
    const edited = { ...docs[3]!, title: 'Retitled' };
    await w.upsert('big', [edited]);
    const blocks = (await stateOf(s, 'big')).idBlocks!;
    expect(blocks[0]).not.toBe(laidOut.idBlocks![0]);
    expect((await s.getBody(idBlockKey('big', 0, blocks[0]!)))!.toString('utf8').split('\n')[3]).toMatch(/^-+$/);
    expect(await readStaticIndex(s, 'big')).toEqual(await freshIndex([...docs.filter((_, i) => i !== 3), added, edited], 'big'));
  });

  it('reads a state stored before blocks (every id in the state) and stores it as blocks on its next write', async () => {
    const s = new MemorySiteStore();
    const docs = Array.from({ length: 20 }, (_, i) => docOf(i));
    await writer(s).rebuild('old', docs);
    // As the release before blocks stored it: the ids joined in the state itself.
    const state = await stateOf(s, 'old');
    const column = (await Promise.all(state.idBlocks!.map(async (tag, block) => (await s.getBody(idBlockKey('old', block, tag)))!.toString('utf8')))).join(
      '\n',
    );
    const { idBlocks: _blocks, ...rest } = state;
    await s.put(stateKey('old'), JSON.stringify({ ...rest, idColumn: column }), { contentType: 'application/json', cacheControl: 'private, no-store' });
    await s.deleteMany(await s.list(idBlockPrefix('old')));

    const restarted = writer(s);
    await restarted.upsert('old', [docOf(20)]);
    await restarted.remove('old', [docs[0]!.id]);
    const stored = await stateOf(s, 'old');
    expect(stored.idColumn).toBeUndefined();
    expect(stored.idBlocks).toHaveLength(1);
    expect(await readStaticIndex(s, 'old')).toEqual(await freshIndex([...docs.slice(1), docOf(20)], 'old'));
  });

  it('sweeps a block a write cut short left behind when it next reads the state from the store', async () => {
    const s = new MemorySiteStore();
    const docs = Array.from({ length: 10 }, (_, i) => docOf(i));
    await writer(s).rebuild('cut', docs);
    // Stored, never named: the state of that write was never committed. It names a post that is not live.
    const leftover = idBlockKey('cut', 0, 'feedfacecafebeef');
    await s.put(leftover, docs.map((d) => d.id).join('\n') + '\nunpublished-id', { contentType: 'text/plain', cacheControl: 'private, no-store' });

    const restarted = writer(s);
    await restarted.upsert('cut', [docOf(10)]);
    expect(await s.list(idBlockPrefix('cut'))).not.toContain(leftover);
    expect(await s.list(idBlockPrefix('cut'))).toHaveLength(1);
    expect(await readStaticIndex(s, 'cut')).toEqual(await freshIndex([...docs, docOf(10)], 'cut'));
  });

  it('answers null when a block the state names is gone, so the caller lays the index out afresh', async () => {
    const s = new MemorySiteStore();
    await writer(s).rebuild('gone', [docOf(0), docOf(1)]);
    await s.deleteMany(await s.list(idBlockPrefix('gone')));
    expect(await writer(s).upsert('gone', [docOf(2)])).toBeNull();
    expect(await writer(s).remove('gone', [docOf(0).id])).toBeNull();
  });
});
