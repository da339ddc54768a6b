import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ListObjectsV2CommandOutput, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { StorageError, StoreTimeoutError } from '../domain/errors.js';
import type { PutOptions, SiteStore, StoredObject } from './siteStore.js';

/**
 * The AWS SDK is loaded on first use, synchronously: it takes a fifth of a second to load, and a
 * server on the folder store (the default) never needs it.
 */
const requireModule = createRequire(import.meta.url);
let loaded: typeof import('@aws-sdk/client-s3') | undefined;
const sdk = (): typeof import('@aws-sdk/client-s3') => (loaded ??= requireModule('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3'));

export interface S3SiteStoreOptions {
  client: S3Client;
  bucket: string;
  /** Deadline of one call, body included, retries included (default S3_CALL_DEADLINE_MS). */
  deadlineMs?: number;
}

/**
 * How long one store call may take in all before it fails as a timeout. The SDK has no deadline
 * of its own, so with the S3 server paused every site read, publish, search and upload would wait
 * as long as the pause. Pages, indexes and resized images are small; a put
 * gets more time per megabyte of body (S3_PUT_MS_PER_MB), so a large original is not cut off
 * on a slow link.
 */
export const S3_CALL_DEADLINE_MS = 5_000;
export const S3_PUT_MS_PER_MB = 1_000;
/** The SDK's own timeouts, per attempt: connecting, and a socket with nothing to read. */
const CONNECTION_TIMEOUT_MS = 2_000;
const SOCKET_IDLE_TIMEOUT_MS = 4_000;

export interface S3ClientOptions {
  /** Omit for AWS itself; set for MinIO, R2, s3rver and friends. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

/** DeleteObjects accepts at most 1000 keys per request (S3 API reference, DeleteObjects). */
const DELETE_BATCH = 1000;

/**
 * S3 object keys are at most 1,024 bytes of UTF-8 ("Naming Amazon S3 objects"). A longer key
 * can never have been stored, so reads, deletes and lists of one find nothing instead of
 * sending a request S3 refuses (KeyTooLongError) and the site server turning that into a 500.
 */
const MAX_KEY_BYTES = 1024;

function tooLongForS3(key: string): boolean {
  return Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES;
}

/**
 * The client settings production uses, exported so tests can build the same client with
 * s3rver's credentials added. Credentials are left to the SDK's default chain.
 */
export function s3ClientConfig(options: S3ClientOptions): S3ClientConfig {
  return {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    // Since 3.729 the SDK checksums every upload by default (CRC32 headers, or aws-chunked
    // trailers for streamed bodies), which many S3-compatible servers do not understand. Only
    // add one where the API demands it: DeleteObjects then carries x-amz-checksum-crc32, which
    // S3 accepts in place of Content-MD5 and s3rver ignores.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without these a connection to a hung server waits for ever (S3SiteStore adds a deadline per call on top).
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: SOCKET_IDLE_TIMEOUT_MS, throwOnRequestTimeout: true },
  };
}

export function createS3Client(options: S3ClientOptions): S3Client {
  return new (sdk().S3Client)(s3ClientConfig(options));
}

export class S3SiteStore implements SiteStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly deadlineMs: number;

  constructor(options: S3SiteStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.deadlineMs = options.deadlineMs ?? S3_CALL_DEADLINE_MS;
  }

  /**
   * Runs one call (a request and reading its body) under a deadline: past it the request is
   * aborted and the call fails with StoreTimeoutError, which the circuit (storeCircuit.ts) and
   * the HTTP layer (503 with Retry-After) understand.
   */
  private async timed<T>(operation: string, subject: string, work: (abortSignal: AbortSignal) => Promise<T>, extraMs = 0): Promise<T> {
    const deadline = this.deadlineMs + extraMs;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const timeout = new StoreTimeoutError(`S3 ${operation} of ${subject} in bucket ${this.bucket} got no answer within ${Math.round(deadline / 1000)} s`, {
          retryAfter: 5,
        });
        // Rejected before the abort, so the race ends with the timeout rather than the SDK's AbortError.
        reject(timeout);
        controller.abort(timeout);
      }, deadline);
    });
    try {
      return await Promise.race([work(controller.signal), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every S3 put is durable once it answers. */
  async flush(): Promise<void> {}

  async put(key: string, body: Buffer | string, options: PutOptions): Promise<void> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const redirect = options.redirectTo;
    try {
      const command = new (sdk().PutObjectCommand)({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: options.contentType,
        CacheControl: options.cacheControl,
        // The body is the caller's HTML fallback page; S3 website endpoints answer 301 instead.
        ...(redirect === undefined ? {} : { WebsiteRedirectLocation: redirect }),
      });
      await this.timed('put', key, (abortSignal) => this.client.send(command, { abortSignal }), Math.ceil((bytes.length / 1e6) * S3_PUT_MS_PER_MB));
    } catch (error) {
      throw this.failure('put', key, error);
    }
  }

  async getBody(key: string): Promise<Buffer | null> {
    return (await this.get(key))?.body ?? null;
  }

  async get(key: string): Promise<StoredObject | null> {
    if (tooLongForS3(key)) return null;
    try {
      const { response, bytes } = await this.timed('get', key, async (abortSignal) => {
        const response = await this.client.send(new (sdk().GetObjectCommand)({ Bucket: this.bucket, Key: key }), { abortSignal });
        if (!response.Body) throw new Error('GetObject returned no body');
        return { response, bytes: await response.Body.transformToByteArray() };
      });
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const redirectTo = response.WebsiteRedirectLocation;
      return {
        body,
        contentType: response.ContentType ?? 'application/octet-stream',
        cacheControl: response.CacheControl ?? '',
        // Servers that omit the ETag still get a strong validator of the same form S3 uses.
        etag: response.ETag ?? `"${createHash('md5').update(body).digest('hex')}"`,
        ...(redirectTo === undefined ? {} : { redirectTo }),
      };
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('get', key, error);
    }
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer | null> {
    if (tooLongForS3(key)) return null;
    try {
      // An empty range still asks for one byte: S3 has no empty ranges, and the answer tells whether the object exists.
      const bytes = await this.timed('get', key, async (abortSignal) => {
        const response = await this.client.send(
          new (sdk().GetObjectCommand)({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${Math.max(start, end - 1)}` }),
          { abortSignal },
        );
        if (!response.Body) throw new Error('GetObject returned no body');
        return response.Body.transformToByteArray();
      });
      return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, Math.max(0, end - start)));
    } catch (error) {
      if (isMissingObject(error)) return null;
      // A range that starts past the end (416) is an empty read, as a file's would be.
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416) return Buffer.alloc(0);
      throw this.failure('get', key, error);
    }
  }

  async size(key: string): Promise<number | null> {
    if (tooLongForS3(key)) return null;
    try {
      const response = await this.timed('size', key, (abortSignal) =>
        this.client.send(new (sdk().HeadObjectCommand)({ Bucket: this.bucket, Key: key }), { abortSignal }),
      );
      return response.ContentLength ?? 0;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('size', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    if (tooLongForS3(key)) return;
    try {
      // S3 answers 204 for a missing key too, so there is nothing to translate here.
      await this.timed('delete', key, (abortSignal) => this.client.send(new (sdk().DeleteObjectCommand)({ Bucket: this.bucket, Key: key }), { abortSignal }));
    } catch (error) {
      throw this.failure('delete', key, error);
    }
  }

  async deleteMany(allKeys: string[]): Promise<void> {
    const keys = allKeys.filter((key) => !tooLongForS3(key));
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      let failed: { key: string; code: string }[];
      try {
        const response = await this.timed('deleteMany', `${batch.length} keys from ${batch[0]}`, (abortSignal) =>
          this.client.send(
            new (sdk().DeleteObjectsCommand)({
              Bucket: this.bucket,
              // Quiet: the response then lists failures only, which is all we look at.
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
            { abortSignal },
          ),
        );
        failed = (response.Errors ?? []).map((e) => ({ key: e.Key ?? '?', code: e.Code ?? 'unknown' }));
      } catch (error) {
        throw this.failure('deleteMany', `${batch.length} keys from ${batch[0]}`, error);
      }
      // DeleteObjects answers 200 even when single keys fail, so a failure is only in the body.
      if (failed.length > 0) {
        const sample = failed
          .slice(0, 3)
          .map((f) => `${f.key} (${f.code})`)
          .join(', ');
        throw new StorageError(`S3 deleteMany failed for ${failed.length} keys in bucket ${this.bucket}: ${sample}`);
      }
    }
  }

  async list(prefix: string): Promise<string[]> {
    if (tooLongForS3(prefix)) return [];
    const keys: string[] = [];
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        const continuation = token;
        page = await this.timed('list', `prefix ${prefix}`, (abortSignal) =>
          this.client.send(
            new (sdk().ListObjectsV2Command)({
              Bucket: this.bucket,
              Prefix: prefix,
              ...(continuation === undefined ? {} : { ContinuationToken: continuation }),
            }),
            { abortSignal },
          ),
        );
      } catch (error) {
        throw this.failure('list', `prefix ${prefix}`, error);
      }
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      // A truncated page without a token would otherwise end the listing early and silently.
      if (page.IsTruncated && token === undefined) {
        throw new StorageError(`S3 list of "${prefix}" in bucket ${this.bucket} was truncated without a continuation token`);
      }
    } while (token !== undefined);
    // S3 orders by UTF-8 bytes and s3rver by its directory walk; sort so every backend agrees.
    return keys.sort();
  }

  private failure(operation: string, subject: string, cause: unknown): StorageError {
    if (cause instanceof StoreTimeoutError) return cause;
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return new StorageError(`S3 ${operation} failed for ${subject} in bucket ${this.bucket}: ${detail}`, { cause });
  }
}

function isMissingObject(error: unknown): boolean {
  if (!(error instanceof sdk().S3ServiceException)) return false;
  // A missing bucket is a 404 as well, but it is a misconfiguration, not an absent page.
  if (error.name === 'NoSuchBucket') return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}
