import type { IncomingMessage } from 'node:http';

const MAX_ADDRESS = 64;

/**
 * The client's address: the socket's, or behind `hops` trusted proxies (FOLIO_TRUST_PROXY) the
 * `hops`-th entry from the right of X-Forwarded-For, the one the nearest trusted proxy wrote.
 * Entries further left are whatever the client sent, so they are never believed. Koa's
 * app.proxy stays off: it would also believe X-Forwarded-Host and -Proto.
 */
export function clientAddress(req: IncomingMessage, hops: number): string {
  const socket = req.socket.remoteAddress ?? 'unknown';
  if (hops === 0) return socket;
  const header = req.headers['x-forwarded-for'];
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '');
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return socket;
  const entry = entries[Math.max(0, entries.length - hops)]!;
  return entry.slice(0, MAX_ADDRESS);
}
