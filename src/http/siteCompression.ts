/**
 * Compression of the site server's text responses (gzip and brotli), so pages served by Folio
 * itself pass Lighthouse's text-compression audit as they do behind a CDN. node:zlib does the
 * work on libuv's thread pool, off the event loop; compressed bodies are kept in a small LRU by
 * ETag, so a page is compressed once per version, not once per reader.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Below this, headers and framing outweigh the savings. */
const MIN_BYTES = 1024;
/** Memory the cache of compressed bodies may hold. */
const CACHE_BYTES = 32 * 1024 * 1024;
const COMPRESSIBLE = /^(text\/|application\/(json|xml|rss\+xml|atom\+xml|feed\+json|ld\+json|javascript)|image\/svg\+xml)/;

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

/** The encoding to answer with: brotli when offered, else gzip, else none (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    offered.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const accepts = (name: Encoding): boolean => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}

export function compressible(contentType: string, bytes: number): boolean {
  return bytes >= MIN_BYTES && COMPRESSIBLE.test(contentType);
}

export class CompressedBodies {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  /** The body in `encoding`, from the cache when this version was compressed before. */
  async get(etag: string, body: Buffer, encoding: Encoding): Promise<Buffer> {
    const key = `${encoding}:${etag}`;
    const cached = this.entries.get(key);
    if (cached) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const compressed =
      encoding === 'br'
        ? await compressBrotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : await compressGzip(body, { level: 6 });
    this.entries.set(key, compressed);
    this.bytes += compressed.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= CACHE_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
    }
    return compressed;
  }
}

/** A distinct validator per representation: `"abc"` → `"abc-br"` (weak tags keep their W/). */
export function encodedEtag(etag: string, encoding: Encoding): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${encoding}"` : `${etag}-${encoding}`;
}
