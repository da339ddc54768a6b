/**
 * deploy/several-nodes/compose.yaml (issue #32's reference topology) cannot be started here: no
 * Docker engine. This checks that its parts agree: both nodes have the same settings and reach
 * the PostgreSQL service as the user, password and database it creates; the balancer's upstreams
 * are exactly the nodes, on the image's port, health-checked on /healthz; Varnish loads the
 * shipped VCL, whose purge ACL names the nodes' alias and whose `folio` backend is the balancer.
 * (The balancer itself runs in Debian's caddy in test/cdn/caddyBalancer.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FILE = join(ROOT, 'deploy', 'several-nodes', 'compose.yaml');

interface Service {
  image?: string;
  extends?: { file: string; service: string };
  stop_grace_period?: string;
  environment?: Record<string, string>;
  networks?: { default?: { aliases?: string[] } };
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

/** Compose's interpolation with no variable set, a required variable standing as `<NAME>`. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (match, name: string, kind: string | undefined, rest: string | undefined) =>
    match === '$$' ? '$' : kind?.endsWith('?') ? `<${name}>` : (rest ?? ''),
  );
}

const compose = parseYaml(readFileSync(FILE, 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const env = (name: string) => Object.fromEntries(Object.entries(services[name]!.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
const nodes = Object.keys(services).filter((name) => /^folio-\d+$/.test(name));
const beside = (path: string) => join(dirname(FILE), path);

describe('deploy/several-nodes/compose.yaml', () => {
  it('runs two nodes with the same settings, each with a data dir of its own, drained before SIGKILL', () => {
    expect(nodes).toEqual(['folio-1', 'folio-2']);
    expect(env('folio-1')).toEqual(env('folio-2'));
    const volumes = nodes.map((name) => services[name]!.volumes![0]!.split(':')[0]);
    expect(new Set(volumes).size).toBe(nodes.length);
    for (const name of nodes) expect(Number(/^(\d+)s$/.exec(services[name]!.stop_grace_period!)![1])).toBeGreaterThan(20);
  });

  it('points every node at the PostgreSQL service as the user, password and database it creates', () => {
    const url = new URL(env('folio-1').FOLIO_DATABASE_URL!);
    const postgres = env('postgres');
    expect(url.hostname).toBe('postgres');
    expect(url.username).toBe(postgres.POSTGRES_USER);
    expect(url.pathname).toBe(`/${postgres.POSTGRES_DB}`);
    // The same required variable on both sides: compose refuses to start without it.
    expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
    expect(postgres.POSTGRES_PASSWORD).toBe('<FOLIO_POSTGRES_PASSWORD>');
    for (const name of nodes) expect(services[name]!.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('extends MinIO and its one-shot from the single-host file', () => {
    for (const name of ['minio', 'minio-bucket']) {
      const from = services[name]!.extends!;
      const single = parseYaml(readFileSync(beside(from.file), 'utf8')) as { services: Record<string, Service> };
      expect(single.services).toHaveProperty([from.service]);
    }
  });

  it('balances over exactly the nodes, health-checked on /healthz', () => {
    const caddy = services.caddy!;
    const upstreams = env('caddy').FOLIO_NODES!.split(' ');
    expect(upstreams).toEqual(nodes.map((name) => `${name}:3000`));
    const mount = caddy.volumes!.find((volume) => volume.endsWith(':/etc/caddy/Caddyfile:ro'))!;
    const caddyfile = readFileSync(beside(mount.split(':')[0]!), 'utf8');
    expect(caddyfile).toContain('reverse_proxy {$FOLIO_NODES');
    expect(caddyfile).toMatch(/health_uri \/healthz\n/);
    expect(caddyfile).toMatch(/lb_try_duration \d+s\n/);
    // A blog's requests to one node (its indexes and listing stay in that node's memory).
    expect(caddyfile).toMatch(/lb_policy header X-Blog-Id\n/);
  });

  it('lets Varnish purge from every node and reach the balancer as its `folio` backend', () => {
    const vcl = services.varnish!.volumes!.find((volume) => volume.endsWith(':/etc/varnish/default.vcl:ro'))!.split(':')[0]!;
    expect(existsSync(beside(vcl))).toBe(true);
    const text = readFileSync(beside(vcl), 'utf8');
    expect(text).toMatch(/acl purgers \{[^}]*\("folio-nodes"\);/);
    expect(text).toMatch(/backend folio \{\s*\.host = "folio";/);
    for (const name of nodes) expect(services[name]!.networks?.default?.aliases).toContain('folio-nodes');
    expect(services.caddy!.networks?.default?.aliases).toContain('folio');
    expect(env('varnish').FOLIO_SERVICE_DOMAIN).toBe(env('folio-1').FOLIO_SERVICE_DOMAIN);
  });
});
