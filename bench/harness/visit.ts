import { request } from 'node:http';

export interface Visit {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as received (text is its UTF-8 reading). */
  body: Buffer;
}

/**
 * A GET (or HEAD) with a chosen Host header, as a browser on `<blog>.localhost` sends it.
 * fetch cannot set Host, so this uses node:http.
 */
export function visit(
  baseUrl: string,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Visit> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: { host, ...options.headers },
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString('utf8'), body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
