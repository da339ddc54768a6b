/**
 * A TCP proxy that holds what the server sends for `lagMs` before passing it on, in order: a
 * listening connection whose notices arrive late, as they may on a loaded machine.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface LaggingProxy {
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  close(): Promise<void>;
}

export async function startLaggingProxy(target: { host: string; port: number }, lagMs: number): Promise<LaggingProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk);
      }, lagMs);
    });
    const end = () => {
      // After the lag, so nothing sent before the close is cut off.
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, lagMs);
    };
    upstream.on('close', end).on('error', end);
    client.on('close', () => upstream.destroy()).on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    through: (url) => Object.assign(new URL(url), { hostname: '127.0.0.1', port: String(port) }).href,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
