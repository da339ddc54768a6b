/**
 * An open-loop load: requests sent at evenly spaced times, whatever the answers do, each one's
 * latency measured from when it was due (not when it left), so a stalled server shows in the
 * figures instead of slowing the client down with it. autocannon's rate limit sends each
 * second's requests in a burst at the start of the second, which measures the bursts.
 */
import { Agent, request } from 'node:http';

export interface PacedRequest {
  path: string;
  headers: Record<string, string>;
}

export interface PacedResult {
  /** Milliseconds from each request's due time to the end of its answer. */
  latencies: number[];
  ok: number;
  failed: number;
}

export function pacedLoad(options: { url: string; rate: number; seconds: number; request: (i: number) => PacedRequest }): Promise<PacedResult> {
  const { hostname, port } = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const total = Math.round(options.rate * options.seconds);
  const gapMs = 1000 / options.rate;
  const result: PacedResult = { latencies: [], ok: 0, failed: 0 };
  let sent = 0;
  let settled = 0;
  return new Promise((resolve) => {
    const start = performance.now();
    const finish = (): void => {
      settled += 1;
      if (settled === total) {
        agent.destroy();
        resolve(result);
      }
    };
    const send = (i: number): void => {
      const due = start + i * gapMs;
      const { path, headers } = options.request(i);
      const req = request({ hostname, port, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== undefined && res.statusCode < 400) result.ok += 1;
          else result.failed += 1;
          result.latencies.push(performance.now() - due);
          finish();
        });
      });
      req.on('error', () => {
        result.failed += 1;
        finish();
      });
      req.end();
    };
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor((performance.now() - start) / gapMs) + 1);
      while (sent < due) send(sent++);
      if (sent === total) clearInterval(tick);
    }, 1);
  });
}
