import { Agent, request } from 'node:http';

/**
 * The event loop of a server seen from outside: GET /healthz on its own keep-alive connection,
 * back to back. A probe's latency beyond its idle baseline is time the loop was held.
 */
function healthOnce(baseUrl: string, agent: Agent): Promise<number> {
  const url = new URL(`${baseUrl}/healthz`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Probes /healthz back to back until stopped; returns the slowest probe in ms. */
export function probe(baseUrl: string): { stop: () => Promise<number> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      worst = Math.max(worst, await healthOnce(baseUrl, agent));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return worst;
    },
  };
}
