import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/paths.js';
import { freePort } from '../../bench/harness/ports.js';
import type { EdgeBackends } from '../../bench/harness/varnish.js';

export const NGINX = '/usr/sbin/nginx';
export const CACHE_PURGE_MODULE = '/usr/lib/nginx/modules/ngx_http_cache_purge_module.so';
export const SHIPPED_NGINX_CONF = join(packageRoot, 'deploy', 'nginx', 'folio.conf');

export interface NginxHandle {
  port: number;
  /** nginx's error log so far (for failure messages). */
  errors(): string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The shipped deploy/nginx/folio.conf with the lines an operator edits pointed at loopback:
 * the cache folder, the two upstreams and the listen address. Each must be found exactly once.
 */
export function shippedNginxConfFor(backends: EdgeBackends, cacheDir: string, port: number): string {
  let conf = readFileSync(SHIPPED_NGINX_CONF, 'utf8');
  const replace = (from: string, to: string): void => {
    const count = conf.split(from).length - 1;
    if (count !== 1) throw new Error(`deploy/nginx/folio.conf: expected ${JSON.stringify(from)} once, found ${count}`);
    conf = conf.replace(from, to);
  };
  replace('proxy_cache_path /var/cache/nginx/folio ', `proxy_cache_path ${cacheDir} `);
  replace('server minio:9000;', `server ${backends.bucket.host}:${backends.bucket.port};`);
  replace('server folio:3000;', `server ${backends.folio.host}:${backends.folio.port};`);
  replace('listen 80;', `listen 127.0.0.1:${port};`);
  replace('set $folio_bucket_host "minio:9000";', `set $folio_bucket_host "${backends.bucket.host}:${backends.bucket.port}";`);
  return conf;
}

/** Starts Debian's nginx in the foreground with the shipped server block, stopped by pid. */
export async function startNginx(options: { backends: EdgeBackends; port?: number }): Promise<NginxHandle> {
  for (const file of [NGINX, CACHE_PURGE_MODULE]) {
    if (!existsSync(file)) throw new Error(`${file} not found: install Debian's nginx-light and libnginx-mod-http-cache-purge (.ci/run does)`);
  }
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'folio-nginx-'));
  await mkdir(join(dir, 'tmp'));
  await mkdir(join(dir, 'logs'));
  await writeFile(join(dir, 'folio.conf'), shippedNginxConfFor(options.backends, join(dir, 'cache'), port));
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      // As root, nginx's workers would otherwise run as nobody, who cannot enter the temp folder.
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'logs', 'error.log')} warn;`,
      `load_module ${CACHE_PURGE_MODULE};`,
      'events { worker_connections 256; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, 'tmp', kind)};`),
      `  include ${join(dir, 'folio.conf')};`,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD', signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`nginx did not answer on port ${port}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    port,
    pid: child.pid!,
    errors: () => {
      try {
        return readFileSync(join(dir, 'logs', 'error.log'), 'utf8');
      } catch {
        return '';
      }
    },
    stop: async () => {
      if (child.exitCode === null) {
        process.kill(child.pid!, 'SIGQUIT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
