import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { StorageError } from '../../src/domain/errors.js';
import { FsSiteStore } from '../../src/storage/fsSiteStore.js';
import { S3SiteStore } from '../../src/storage/s3SiteStore.js';
import type { PutOptions, SiteStore } from '../../src/storage/siteStore.js';
import { putMany } from '../../src/storage/putMany.js';
import { freePort } from '../../bench/harness/ports.js';
import { createTestBucket, createTestS3Client } from '../../bench/harness/s3rver.js';

interface StoreFixture {
  store: SiteStore;
  cleanup(): Promise<void>;
}

const HTML: PutOptions = { contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=60' };
const TEXT: PutOptions = { contentType: 'text/plain; charset=utf-8', cacheControl: 'no-cache' };

/** More than one S3 list page and one DeleteObjects batch (both cap at 1000). */
const MANY = 1_050;

async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** The behaviour every SiteStore must have; run once per backend with a fresh, empty store. */
function siteStoreContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`${name} honours the SiteStore contract`, () => {
    let fixture: StoreFixture;
    let store: SiteStore;
    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });
    afterEach(async () => fixture.cleanup());

    it('round-trips a UTF-8 string body, Korean key and text included, with its headers', async () => {
      const body = '<h1>안녕하세요, 세계</h1><p>한글 본문 ✓</p>';
      await store.put('blog/안녕-세계/index.html', body, HTML);

      const object = await store.get('blog/안녕-세계/index.html');

      expect(object?.body).toEqual(Buffer.from(body, 'utf8'));
      expect(object?.body.toString('utf8')).toBe(body);
      expect(object?.contentType).toBe(HTML.contentType);
      expect(object?.cacheControl).toBe(HTML.cacheControl);
      expect(object).not.toHaveProperty('redirectTo');
    });

    it('takes many objects through putMany: each put without its own flush, some at once, one flush after the last', async () => {
      const events: string[] = [];
      let inFlight = 0;
      let most = 0;
      // The store itself, with what putMany asks of it written down.
      const watched: SiteStore = {
        ...store,
        put: async (key, body, options) => {
          most = Math.max(most, ++inFlight);
          try {
            await store.put(key, body, options);
            events.push(`put ${key} ${options.deferSync === true}`);
          } finally {
            inFlight -= 1;
          }
        },
        flush: async () => {
          events.push('flush');
          await store.flush();
        },
        get: (key) => store.get(key),
        list: (prefix) => store.list(prefix),
      };
      let made = 0;
      function* objects(): Generator<{ key: string; body: string }> {
        for (let i = 0; i < 60; i++) {
          made += 1;
          yield { key: `blog/search/t/${i}.json`, body: JSON.stringify({ i }) };
        }
      }
      await putMany(watched, objects(), TEXT);
      expect(made).toBe(60);
      expect(events.filter((e) => e.startsWith('put')).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `put blog/search/t/${i}.json true`).sort());
      expect(events.filter((e) => e === 'flush')).toEqual(['flush']);
      expect(events.at(-1)).toBe('flush');
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(16);
      expect((await store.list('blog/search/t/')).length).toBe(60);
      expect((await store.get('blog/search/t/59.json'))?.body.toString('utf8')).toBe('{"i":59}');
    });

    it('serves deferred-sync writes at once and flushes them without error', async () => {
      await store.put('blog/bulk-1/index.html', '<p>one</p>', { ...HTML, deferSync: true });
      await store.put('blog/bulk-2/index.html', '<p>two</p>', { ...HTML, deferSync: true });
      expect((await store.get('blog/bulk-1/index.html'))?.body.toString('utf8')).toBe('<p>one</p>');
      await store.delete('blog/bulk-2/index.html'); // a flushed file may be gone by then
      await store.flush();
      await store.flush(); // nothing left to flush
      expect((await store.get('blog/bulk-1/index.html'))?.body.toString('utf8')).toBe('<p>one</p>');
      expect(await store.get('blog/bulk-2/index.html')).toBeNull();
    });

    it('round-trips binary and empty bodies byte for byte', async () => {
      const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
      await store.put('blog/img/noise.bin', binary, { contentType: 'application/octet-stream', cacheControl: 'max-age=31536000, immutable' });
      await store.put('blog/empty.txt', '', TEXT);

      expect((await store.get('blog/img/noise.bin'))?.body).toEqual(binary);
      expect((await store.get('blog/empty.txt'))?.body).toEqual(Buffer.alloc(0));
      expect((await store.get('blog/img/noise.bin'))?.cacheControl).toBe('max-age=31536000, immutable');
    });

    it('round-trips redirectTo together with the fallback page body', async () => {
      const fallback = '<meta http-equiv="refresh" content="0; url=/new-slug">';
      await store.put('blog/old-slug/index.html', fallback, { ...HTML, redirectTo: '/new-slug' });

      const object = await store.get('blog/old-slug/index.html');

      expect(object?.redirectTo).toBe('/new-slug');
      expect(object?.body.toString('utf8')).toBe(fallback);
      expect(object?.contentType).toBe(HTML.contentType);
    });

    it('replaces body, headers and redirect on overwrite', async () => {
      await store.put('blog/post/index.html', 'old', { ...TEXT, redirectTo: '/elsewhere' });
      await store.put('blog/post/index.html', '<p>new</p>', HTML);

      const object = await store.get('blog/post/index.html');

      expect(object?.body.toString('utf8')).toBe('<p>new</p>');
      expect(object?.contentType).toBe(HTML.contentType);
      expect(object?.cacheControl).toBe(HTML.cacheControl);
      expect(object).not.toHaveProperty('redirectTo');
    });

    it('answers null for a missing key, also below a missing folder', async () => {
      await store.put('blog/index.html', 'x', HTML);

      expect(await store.get('blog/missing.html')).toBeNull();
      expect(await store.get('nowhere/at/all.html')).toBeNull();
    });

    it('reads a byte range of an object: within it, past its end, empty, and null for a missing key', async () => {
      const body = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 251));
      await store.put('blog/_search/seg-000001-abcdef01.bin', body, {
        contentType: 'application/octet-stream',
        cacheControl: 'private, max-age=31536000, immutable',
      });
      expect(await store.getRange('blog/_search/seg-000001-abcdef01.bin', 10, 20)).toEqual(body.subarray(10, 20));
      expect(await store.getRange('blog/_search/seg-000001-abcdef01.bin', 0, 300)).toEqual(body);
      expect(await store.getRange('blog/_search/seg-000001-abcdef01.bin', 290, 400)).toEqual(body.subarray(290));
      expect(await store.getRange('blog/_search/seg-000001-abcdef01.bin', 42, 42)).toEqual(Buffer.alloc(0));
      expect(await store.getRange('blog/_search/seg-000001-abcdef01.bin', 500, 600)).toEqual(Buffer.alloc(0));
      expect(await store.getRange('blog/_search/missing.bin', 0, 10)).toBeNull();
      expect(await store.getRange('blog/no-such-folder/missing.bin', 0, 10)).toBeNull();
    });

    it('reads the body alone: the version last put, null when missing', async () => {
      const state = 'blog/_search/static-state.json';
      const json = { contentType: 'application/json; charset=utf-8', cacheControl: 'private, no-cache' };
      await store.put(state, '{"v":1}', json);
      await store.put(state, '{"v":2}', json);
      expect((await store.getBody(state))?.toString()).toBe('{"v":2}');
      await store.put('blog/plain/index.html', '<p>page</p>', HTML);
      expect((await store.getBody('blog/plain/index.html'))?.toString()).toBe('<p>page</p>');
      expect(await store.getBody('blog/_search/missing.json')).toBeNull();
      expect(await store.getBody('nowhere/at/all.json')).toBeNull();
    });

    it('answers a key too long to ever be stored as missing: null, nothing to delete, nothing listed', async () => {
      // Regression: a 6,000-character site path reached the folder store as ENAMETOOLONG and
      // the site server answered 500 instead of 404.
      await store.put('blog/index.html', 'x', HTML);
      const long = `blog/${'a'.repeat(6_000)}/index.html`;

      expect(await store.get(long)).toBeNull();
      await store.delete(long);
      await store.deleteMany([long]);
      expect(await store.list(long)).toEqual([]);
      expect(await store.list(`blog/${'a'.repeat(6_000)}`)).toEqual([]);
      expect(await store.list('')).toEqual(['blog/index.html']);
    });

    it('deletes an object, and deleting a missing key is not an error', async () => {
      await store.put('blog/a.html', 'a', HTML);
      await store.put('blog/b.html', 'b', HTML);

      await store.delete('blog/a.html');
      await store.delete('blog/a.html');
      await store.delete('never/existed.html');
      // Only a prefix of other keys (a folder on disk): no object, so nothing to remove.
      await store.delete('blog');

      expect(await store.get('blog/a.html')).toBeNull();
      expect(await store.list('')).toEqual(['blog/b.html']);
    });

    it('deleteMany removes the existing keys of a mix and ignores the missing ones', async () => {
      for (const key of ['blog/a.html', 'blog/b.html', 'blog/c/index.html']) await store.put(key, key, HTML);

      await store.deleteMany(['blog/a.html', 'blog/missing.html', 'blog/c/index.html', 'gone/x']);
      await store.deleteMany([]);

      expect(await store.list('')).toEqual(['blog/b.html']);
    });

    it('lists the keys under a string prefix in lexicographic order', async () => {
      // Put in shuffled order, with keys whose folder walk order differs from key order.
      const keys = [
        'blog/tail.html',
        'other/x.txt',
        'blog/a/index.html',
        'blogger/index.html',
        'blog/tags/x/index.html',
        'blog/a-b/index.html',
        'blog/index.html',
      ];
      for (const key of keys) await store.put(key, key, HTML);

      expect(await store.list('blog/')).toEqual(['blog/a-b/index.html', 'blog/a/index.html', 'blog/index.html', 'blog/tags/x/index.html', 'blog/tail.html']);
      expect(await store.list('blog/ta')).toEqual(['blog/tags/x/index.html', 'blog/tail.html']);
      expect(await store.list('blog')).toEqual([...keys.filter((k) => k.startsWith('blog'))].sort());
      expect(await store.list('')).toEqual([...keys].sort());
      expect(await store.list('nothing/')).toEqual([]);
    });

    it(`lists and deleteMany-s ${MANY} keys, beyond one S3 page and one batch`, async () => {
      // Flat, fixed-width names: s3rver pages in folder-walk order, which matches key order
      // only for such keys (see bench/harness/s3rver.ts); the store cannot repair a server's paging.
      const keys = Array.from({ length: MANY }, (_, i) => `many/${String(i).padStart(5, '0')}.txt`);
      await inPool(keys, 24, (key) => store.put(key, 'x', TEXT));
      await store.put('manx.txt', 'outside the prefix', TEXT);

      expect(await store.list('many/')).toEqual(keys);

      await store.deleteMany([...keys, 'many/missing.txt']);

      expect(await store.list('many/')).toEqual([]);
      expect(await store.list('')).toEqual(['manx.txt']);
    });

    it('gives a quoted strong etag that follows the body', async () => {
      await store.put('blog/e.html', 'one', HTML);
      const first = (await store.get('blog/e.html'))?.etag;
      await store.put('blog/e.html', 'one', TEXT);
      const same = (await store.get('blog/e.html'))?.etag;
      await store.put('blog/e.html', 'two', HTML);
      const changed = (await store.get('blog/e.html'))?.etag;

      expect(first).toMatch(/^"[^"]+"$/);
      expect(same).toBe(first);
      expect(changed).toMatch(/^"[^"]+"$/);
      expect(changed).not.toBe(first);
    });

    it('round-trips an immutable object with its headers, and gives it the etag of its bytes', async () => {
      const immutable = { contentType: 'application/octet-stream', cacheControl: 'private, max-age=31536000, Immutable' };
      const body = Buffer.from([0, 1, 2, 250, 251, 252]);
      await store.put('blog/_search/seg-000001-00000000.bin', body, immutable);
      await store.put('blog/_search/plain.bin', body, { contentType: 'application/octet-stream', cacheControl: 'no-cache' });
      const object = await store.get('blog/_search/seg-000001-00000000.bin');
      expect(object?.body.equals(body)).toBe(true);
      expect(object?.contentType).toBe(immutable.contentType);
      expect(object?.cacheControl).toBe(immutable.cacheControl);
      expect(object?.etag).toBe((await store.get('blog/_search/plain.bin'))?.etag);
    });
  });
}

async function fsFixture(): Promise<StoreFixture & { dir: string; root: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-fs-store-'));
  const root = join(dir, 'public');
  return { dir, root, store: new FsSiteStore({ root }), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function s3Fixture(): Promise<StoreFixture & { client: S3Client; bucket: string }> {
  const { client, bucket } = await createTestBucket(inject('s3Endpoint'));
  return { client, bucket, store: new S3SiteStore({ client, bucket }), cleanup: async () => client.destroy() };
}

siteStoreContract('FsSiteStore', fsFixture);
siteStoreContract('S3SiteStore', s3Fixture);

describe('FsSiteStore on disk', () => {
  let fixture: Awaited<ReturnType<typeof fsFixture>>;
  let store: FsSiteStore;
  beforeEach(async () => {
    fixture = await fsFixture();
    store = fixture.store as FsSiteStore;
  });
  afterEach(async () => fixture.cleanup());

  it.each(['../x', 'a/../../x', '/etc/passwd', 'a\\b', '.meta/x', '', 'a//b', 'a/./b', 'a/.tmp-0123', 'a/b/', 'a\0b'])(
    'refuses the key %j and writes nothing outside the root',
    async (key) => {
      await expect(store.put(key, 'evil', TEXT)).rejects.toBeInstanceOf(StorageError);
      await expect(store.get(key)).rejects.toBeInstanceOf(StorageError);
      await expect(store.delete(key)).rejects.toBeInstanceOf(StorageError);
      await expect(store.deleteMany(['fine.txt', key])).rejects.toBeInstanceOf(StorageError);
      expect(await readdir(fixture.dir)).toEqual([]);
    },
  );

  it('answers a key with a segment over 255 bytes (ENAMETOOLONG) as missing, not as a StorageError', async () => {
    await store.put('blog/index.html', 'x', HTML);
    for (const key of [`blog/${'b'.repeat(300)}/index.html`, `blog/${'한'.repeat(100)}.html`, `${'c'.repeat(256)}`]) {
      expect(await store.get(key)).toBeNull();
      await store.delete(key);
      expect(await store.list(key)).toEqual([]);
      expect(await store.list(`${key}/`)).toEqual([]);
    }
    expect(await store.list('')).toEqual(['blog/index.html']);
  });

  /** Runs `flush` with PATH holding only a `sync` that records its call and fails (so the file-by-file path runs after it). */
  async function flushWithRecordingSync(): Promise<boolean> {
    const bin = join(fixture.dir, 'bin');
    const marker = join(fixture.dir, 'sync-called');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'sync'), `#!/bin/sh\necho "$@" > '${marker}'\nexit 1\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:/nonexistent`;
    try {
      await store.flush();
    } finally {
      process.env.PATH = path;
    }
    return existsSync(marker);
  }

  it('flushes a publish’s few deferred writes file by file, without starting `sync -f`', async () => {
    await store.put('blog/a/index.html', '<p>a</p>', { ...HTML, deferSync: true });
    await store.put('blog/b/index.html', '<p>b</p>', { ...HTML, deferSync: true });
    await store.delete('blog/b/index.html');
    expect(await flushWithRecordingSync()).toBe(false);
    expect(await readFile(join(fixture.root, 'blog/a/index.html'), 'utf8')).toBe('<p>a</p>');
  });

  it('flushes many deferred writes with one `sync -f`, and file by file where that command fails', async () => {
    const keys = Array.from({ length: 70 }, (_, i) => `blog/p${i}/index.html`);
    for (const key of keys) await store.put(key, `<p>${key}</p>`, { ...HTML, deferSync: true });
    expect(await flushWithRecordingSync()).toBe(true);
    for (const key of keys) expect(await readFile(join(fixture.root, key), 'utf8')).toBe(`<p>${key}</p>`);
  });

  it('keeps bodies at <root>/<key>, so a static server can serve the folder as is', async () => {
    await store.put('blog/post/index.html', '<p>안녕</p>', HTML);

    expect(await readFile(join(fixture.root, 'blog/post/index.html'), 'utf8')).toBe('<p>안녕</p>');
  });

  it('never lists metadata or hidden files', async () => {
    await store.put('blog/index.html', 'i', HTML);
    await store.put('blog/old/index.html', 'r', { ...HTML, redirectTo: '/new' });
    await writeFile(join(fixture.root, 'blog/.DS_Store'), 'junk');

    expect(existsSync(join(fixture.root, '.meta/blog/index.html.json'))).toBe(true);
    expect(await store.list('')).toEqual(['blog/index.html', 'blog/old/index.html']);
    expect(await store.list('.meta/')).toEqual([]);
    expect(await store.list('.')).toEqual([]);
  });

  it('hides temp files of a crashed write from list and get', async () => {
    await store.put('blog/index.html', 'old', HTML);
    // What a process killed between write and rename leaves behind.
    await writeFile(join(fixture.root, 'blog/.tmp-5f3a9c1d2e4b6a70'), '<html><body>half a pa');

    expect(await store.list('')).toEqual(['blog/index.html']);
    expect((await store.get('blog/index.html'))?.body.toString()).toBe('old');
    await expect(store.get('blog/.tmp-5f3a9c1d2e4b6a70')).rejects.toBeInstanceOf(StorageError);
  });

  it('shows readers the old or the new body while a large write is in flight, never a part', async () => {
    const old = Buffer.from('old body');
    const big = Buffer.alloc(32 * 1024 * 1024, 'n');
    await store.put('blog/big.bin', old, TEXT);

    let done = false;
    const writing = store.put('blog/big.bin', big, TEXT).finally(() => {
      done = true;
    });
    let sawTempFile = false;
    const seen = new Set<string>();
    while (!done) {
      const raw = await readdir(join(fixture.root, 'blog'));
      if (raw.some((name) => name.startsWith('.tmp-'))) sawTempFile = true;
      expect(await store.list('')).toEqual(['blog/big.bin']);
      const body = (await store.get('blog/big.bin'))?.body;
      seen.add(body?.equals(old) ? 'old' : body?.equals(big) ? 'new' : `partial of ${body?.length} bytes`);
    }
    await writing;

    expect(sawTempFile).toBe(true);
    expect([...seen].filter((s) => s !== 'old' && s !== 'new')).toEqual([]);
    expect((await store.get('blog/big.bin'))?.body.equals(big)).toBe(true);
  });

  it('falls back to a type from the extension when an object has no metadata', async () => {
    await mkdir(join(fixture.root, 'blog'), { recursive: true });
    await writeFile(join(fixture.root, 'blog/by-hand.html'), '<p>hand</p>');

    const object = await store.get('blog/by-hand.html');

    expect(object?.contentType).toBe('text/html; charset=utf-8');
    expect(object?.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(object).not.toHaveProperty('redirectTo');
  });

  it('ends overlapping puts of one key with the last body and its own metadata', async () => {
    const puts = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? store.put('blog/race.html', `text ${i}`, TEXT) : store.put('blog/race.html', `html ${i}`, HTML),
    );
    await Promise.all(puts);

    const object = await store.get('blog/race.html');

    expect(object?.body.toString()).toBe('html 39');
    expect(object?.contentType).toBe(HTML.contentType);
  });

  it('ends with the later of two puts of one key when the earlier body takes longer to hash (several slices)', async () => {
    const large = Buffer.alloc(20 * 1024 * 1024, 'a');
    await Promise.all([store.put('blog/big.bin', large, TEXT), store.put('blog/big.bin', 'small, and later', TEXT)]);
    expect((await store.get('blog/big.bin'))?.body.toString()).toBe('small, and later');
  });

  it('removes folders a delete leaves empty, in the body and the metadata tree', async () => {
    await store.put('blog/post/index.html', 'p', HTML);
    await store.put('blog/index.html', 'i', HTML);

    await store.delete('blog/post/index.html');

    expect(existsSync(join(fixture.root, 'blog/post'))).toBe(false);
    expect(existsSync(join(fixture.root, '.meta/blog/post'))).toBe(false);
    expect(existsSync(join(fixture.root, 'blog/index.html'))).toBe(true);
  });

  it('wraps file system failures in StorageError and keeps the cause', async () => {
    await store.put('blog/file', 'a file where a folder is needed', TEXT);

    const error = await store.put('blog/file/index.html', 'x', HTML).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).cause).toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) });
  });
});

describe('FsSiteStore plain objects (no metadata file)', () => {
  const PAGE: PutOptions = { contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=60, s-maxage=300' };
  let dir = '';
  let root = '';
  const open = (): FsSiteStore => new FsSiteStore({ root, plainCacheControl: PAGE.cacheControl });
  const metaFile = (key: string): string => join(root, '.meta', `${key}.json`);
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'folio-fs-plain-'));
    root = join(dir, 'public');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('writes a page with the usual type of its extension and the plain Cache-Control as its body alone, and reads it back whole', async () => {
    const store = open();
    await store.put('blog/post/index.html', '<p>plain</p>', PAGE);
    expect(existsSync(metaFile('blog/post/index.html'))).toBe(false);
    const object = await store.get('blog/post/index.html');
    expect(object?.body.toString()).toBe('<p>plain</p>');
    expect(object?.contentType).toBe(PAGE.contentType);
    expect(object?.cacheControl).toBe(PAGE.cacheControl);
    expect(object).not.toHaveProperty('redirectTo');
  });

  it('keeps a metadata file for redirects, other types and other Cache-Control values', async () => {
    const store = open();
    await store.put('blog/old/index.html', 'moved', { ...PAGE, redirectTo: '/new' });
    await store.put('blog/rss.xml', '<rss/>', { contentType: 'application/rss+xml; charset=utf-8', cacheControl: PAGE.cacheControl });
    await store.put('blog/assets/site.css', 'body{}', { contentType: 'text/css; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable' });
    for (const key of ['blog/old/index.html', 'blog/rss.xml', 'blog/assets/site.css']) expect(existsSync(metaFile(key))).toBe(true);
    expect((await store.get('blog/old/index.html'))?.redirectTo).toBe('/new');
    expect((await store.get('blog/rss.xml'))?.contentType).toBe('application/rss+xml; charset=utf-8');
    expect((await store.get('blog/assets/site.css'))?.cacheControl).toBe('public, max-age=31536000, immutable');
  });

  it('removes the metadata of an earlier version when a plain put replaces it, also in a store opened afterwards', async () => {
    await open().put('blog/a/index.html', 'redirect', { ...PAGE, redirectTo: '/b' });
    await open().put('blog/c/index.html', 'no-store', { ...PAGE, cacheControl: 'no-store' });
    // A new store (a restarted process) learns from the disk which keys have metadata.
    const store = open();
    await store.put('blog/a/index.html', 'page a', PAGE);
    await store.put('blog/c/index.html', 'page c', PAGE);
    for (const key of ['blog/a/index.html', 'blog/c/index.html']) {
      expect(existsSync(metaFile(key))).toBe(false);
      const object = await store.get(key);
      expect(object?.cacheControl).toBe(PAGE.cacheControl);
      expect(object).not.toHaveProperty('redirectTo');
    }
    // And the other way round, in the same store.
    await store.put('blog/a/index.html', 'moved again', { ...PAGE, redirectTo: '/d' });
    expect((await store.get('blog/a/index.html'))?.redirectTo).toBe('/d');
    await store.put('blog/a/index.html', 'page a again', PAGE);
    expect(await store.get('blog/a/index.html')).not.toHaveProperty('redirectTo');
  });

  it('removes metadata in folders it learnt of after reading their parents, and in folders another store made', async () => {
    const store = open();
    await store.put('blog/first/index.html', 'reads .meta and .meta/blog', PAGE);
    // The redirect's metadata folders (.meta/blog/tags/go) appear after their parents were read.
    await store.put('blog/tags/go/index.html', 'moved', { ...PAGE, redirectTo: '/tags/golang/' });
    await store.put('blog/tags/go/index.html', 'a page again', PAGE);
    expect(existsSync(metaFile('blog/tags/go/index.html'))).toBe(false);

    await open().put('blog/deep/a/b/index.html', 'moved', { ...PAGE, redirectTo: '/x' });
    const later = open();
    await later.put('blog/other/index.html', 'reads .meta/blog, which lists deep', PAGE);
    await later.put('blog/deep/a/b/index.html', 'a page', PAGE);
    expect(existsSync(metaFile('blog/deep/a/b/index.html'))).toBe(false);
    expect(await later.get('blog/deep/a/b/index.html')).not.toHaveProperty('redirectTo');
  });

  it('deletes a redirect and its metadata in folders it has read, prunes them, and deletes keys never written without a trace', async () => {
    const store = open();
    await store.put('blog/first/index.html', 'reads .meta and .meta/blog', PAGE);
    await store.put('blog/tags/go/index.html', 'moved', { ...PAGE, redirectTo: '/tags/golang/' });
    await store.put('blog/tags/go/page/1/index.html', 'a plain page', PAGE);
    expect(existsSync(metaFile('blog/tags/go/index.html'))).toBe(true);

    // Pages a batch names in case a list lost them, never written (the metadata tree has no such folder).
    for (const key of ['blog/tags/go/page/2/index.html', 'blog/tags/rust/page/3/index.html', 'blog/page/9/index.html']) await store.delete(key);
    await store.delete('blog/tags/go/index.html');

    expect(existsSync(metaFile('blog/tags/go/index.html'))).toBe(false);
    expect(existsSync(join(root, '.meta/blog/tags'))).toBe(false);
    expect(existsSync(join(root, 'blog/tags/go/index.html'))).toBe(false);
    expect((await store.get('blog/tags/go/page/1/index.html'))?.body.toString()).toBe('a plain page');
    expect(existsSync(join(root, 'blog/tags/rust'))).toBe(false);
    expect(existsSync(join(root, 'blog/page'))).toBe(false);
    // A store opened afterwards (nothing read yet) deletes what the disk has.
    await store.put('blog/old/index.html', 'moved', { ...PAGE, redirectTo: '/new' });
    await open().delete('blog/old/index.html');
    expect(existsSync(metaFile('blog/old/index.html'))).toBe(false);
    expect(existsSync(join(root, 'blog/old'))).toBe(false);
  });

  it('reads one whole version of a body while puts replace it (getBody)', async () => {
    // Folder store only: s3rver, the S3 stand-in, serves an object while it is still writing it
    // (S3 itself never does), so the same check against it would test s3rver.
    const store = open();
    const state = 'blog/_search/static-state.json';
    const json = { contentType: 'application/json; charset=utf-8', cacheControl: 'private, no-cache' };
    const versions = Array.from({ length: 12 }, (_, i) => JSON.stringify({ v: i, pad: String(i).repeat(200_000 + i) }));
    await store.put(state, versions[0]!, json);
    const reads: Promise<Buffer | null>[] = [];
    await Promise.all(
      versions.map(async (body) => {
        reads.push(store.getBody(state));
        await store.put(state, body, json);
        reads.push(store.getBody(state));
      }),
    );
    for (const read of await Promise.all(reads)) expect(versions).toContain(read?.toString());
  });

  it('ignores metadata that belongs to another body (a leftover another process wrote)', async () => {
    const store = open();
    await store.put('blog/p/index.html', 'current', PAGE);
    await mkdir(join(root, '.meta', 'blog', 'p'), { recursive: true });
    await writeFile(
      metaFile('blog/p/index.html'),
      JSON.stringify({ contentType: 'text/plain', cacheControl: 'no-store', redirectTo: '/x', md5: '0'.repeat(32) }),
    );
    const object = await store.get('blog/p/index.html');
    expect(object?.body.toString()).toBe('current');
    expect(object?.contentType).toBe(PAGE.contentType);
    expect(object?.cacheControl).toBe(PAGE.cacheControl);
    expect(object).not.toHaveProperty('redirectTo');
  });

  it('ends overlapping plain and redirect puts of one key with the last one, headers included', async () => {
    const store = open();
    for (const last of ['plain', 'redirect'] as const) {
      const puts = Array.from({ length: 40 }, (_, i) => {
        const plain = (i % 2 === 1) === (last === 'plain');
        return store.put('blog/race/index.html', `${plain ? 'plain' : 'redirect'} ${i}`, plain ? PAGE : { ...PAGE, redirectTo: '/elsewhere' });
      });
      await Promise.all(puts);
      const object = await store.get('blog/race/index.html');
      expect(object?.body.toString()).toBe(`${last} 39`);
      expect(object?.redirectTo).toBe(last === 'plain' ? undefined : '/elsewhere');
      expect(existsSync(metaFile('blog/race/index.html'))).toBe(last === 'redirect');
    }
  });

  it('deletes a plain object and its folder', async () => {
    const store = open();
    await store.put('blog/gone/index.html', 'bye', PAGE);
    await store.delete('blog/gone/index.html');
    expect(await store.get('blog/gone/index.html')).toBeNull();
    expect(existsSync(join(root, 'blog', 'gone'))).toBe(false);
  });
});

describe('S3SiteStore against s3rver', () => {
  let fixture: Awaited<ReturnType<typeof s3Fixture>>;
  beforeEach(async () => {
    fixture = await s3Fixture();
  });
  afterEach(async () => fixture.cleanup());

  it('stores redirectTo as WebsiteRedirectLocation, which S3 website endpoints answer with', async () => {
    await fixture.store.put('blog/old/index.html', 'fallback', { ...HTML, redirectTo: '/new' });

    const head = await fixture.client.send(new HeadObjectCommand({ Bucket: fixture.bucket, Key: 'blog/old/index.html' }));

    expect(head.WebsiteRedirectLocation).toBe('/new');
  });

  it('sends DeleteObjects batches of at most 1000 keys', async () => {
    const batches: number[] = [];
    fixture.client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Delete?: { Objects?: unknown[] } };
        if (input.Delete?.Objects) batches.push(input.Delete.Objects.length);
        return next(args);
      },
      { step: 'initialize', name: 'countDeleteBatches' },
    );

    await fixture.store.deleteMany(Array.from({ length: 2_001 }, (_, i) => `gone/${i}`));

    expect(batches).toEqual([1000, 1000, 1]);
  });

  it('raises StorageError, not null, when the bucket does not exist', async () => {
    const store = new S3SiteStore({ client: fixture.client, bucket: 'folio-no-such-bucket' });

    await expect(store.get('blog/index.html')).rejects.toBeInstanceOf(StorageError);
  });

  it('raises StorageError with the SDK error as cause, quickly, when the endpoint is down', async () => {
    const port = await freePort();
    const client = await createTestS3Client(`http://127.0.0.1:${port}`, {
      maxAttempts: 1,
      requestHandler: { connectionTimeout: 500, requestTimeout: 1_000 },
    });
    const store = new S3SiteStore({ client, bucket: 'folio-down' });
    const started = Date.now();
    try {
      const calls: (() => Promise<unknown>)[] = [
        () => store.get('a'),
        () => store.put('a', 'x', TEXT),
        () => store.delete('a'),
        () => store.deleteMany(['a']),
        () => store.list(''),
      ];
      for (const call of calls) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StorageError);
        expect((error as StorageError).cause).toBeInstanceOf(Error);
        expect((error as StorageError).cause).not.toBeInstanceOf(StorageError);
      }
    } finally {
      client.destroy();
    }
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
