import { visit, type Visit } from './visit.js';

export type EdgeResponse = Visit;

/**
 * A request to a cache on loopback with a chosen Host header, from an optional local address
 * (127.0.0.2 is loopback too, but outside the purge ACLs).
 */
export function edgeRequest(port: number, host: string, path: string, options: { method?: string; from?: string } = {}): Promise<EdgeResponse> {
  return visit(`http://127.0.0.1:${port}`, host, path, {
    ...(options.method ? { method: options.method } : {}),
    ...(options.from ? { localAddress: options.from } : {}),
  });
}
