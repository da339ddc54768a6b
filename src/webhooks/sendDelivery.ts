/**
 * One webhook send on the wire: resolving the receiver's name to a checked address, then one POST
 * to that address, all under one deadline, so that nothing (a resolver retrying, a receiver
 * trickling its answer) holds a send, or the claim it runs under, longer.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveAllowed, type Lookup } from './addressGuard.js';

/** A send cut off by close(): not the receiver's failure, so it is not recorded as an attempt. */
export class StoppedError extends Error {}

export interface SendDeadline {
  /** performance.now() at which the send is given up. */
  at: number;
  /** The whole allowance, as the error names it. */
  totalMs: number;
}

export interface SendTarget {
  url: URL;
  lookup: Lookup;
  allowPrivate: boolean;
}

/** Resolves with the receiver's status code; rejects on a blocked address, an error, the deadline, or `stop`. */
export async function sendDelivery(
  target: SendTarget,
  headers: Record<string, string>,
  body: string,
  deadline: SendDeadline,
  stop: AbortSignal,
): Promise<number> {
  const address = await beforeDeadline(resolveAllowed(target.url, target), deadline, stop);
  return post(target.url, address, headers, body, deadline, stop);
}

function deadlineError(deadline: SendDeadline): Error {
  return new Error(`no complete answer within ${deadline.totalMs / 1000} s`);
}

/** `work`, or its rejection at the deadline or at `stop` (a DNS lookup cannot be aborted: its answer is dropped). */
function beforeDeadline<T>(work: Promise<T>, deadline: SendDeadline, stop: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(deadlineError(deadline))), Math.max(0, deadline.at - performance.now()));
    const onStop = (): void => finish(() => reject(new StoppedError('the server is shutting down')));
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      settle();
    };
    stop.addEventListener('abort', onStop);
    work.then(
      (value) => finish(() => resolve(value)),
      (err: unknown) => finish(() => reject(err)),
    );
  });
}

/**
 * POSTs `body` to `url`, connecting to the checked `address`; resolves with the status code once
 * the whole answer has arrived (or its first 64 KB), rejects when the deadline passes first.
 */
function post(
  url: URL,
  address: { address: string; family: number },
  headers: Record<string, string>,
  body: string,
  deadline: SendDeadline,
  stop: AbortSignal,
): Promise<number> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: { status: number } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      if ('status' in outcome) resolve(outcome.status);
      else reject(outcome.error);
      // Whatever is still open (a trickling answer, a connect in progress) goes now.
      req.destroy();
    };
    // One timer over the whole exchange: a socket timeout alone restarts with every byte, and a
    // receiver sending one byte every few seconds would hold the send for ever.
    const timer = setTimeout(() => settle({ error: deadlineError(deadline) }), Math.max(0, deadline.at - performance.now()));
    const onStop = (): void => settle({ error: new StoppedError('the server is shutting down') });
    stop.addEventListener('abort', onStop);
    // agent: false: a connection per send, closed after it, never reused for another address.
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, agent: false },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: read a little, then let it go.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) settle({ status });
        });
        res.on('end', () => settle({ status }));
        res.on('close', () => settle({ error: new Error(`answered ${status}, then the connection closed before the answer was complete`) }));
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => settle({ error: err }));
    if (stop.aborted) onStop();
    else req.end(body);
  });
}
