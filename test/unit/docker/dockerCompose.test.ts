/**
 * docker-compose.yml (the reference topology) cannot be started here: no Docker engine. This
 * checks that it is valid YAML and that its services agree with each other and with the
 * Dockerfile: Folio reaches MinIO and Varnish by service names and ports that exist, uses the
 * bucket the one-shot creates with the credentials MinIO starts with, keeps its data in the
 * image's volume, and Varnish loads the shipped VCL where the official image reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseDockerfile } from '../../support/docker/dockerfile.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Service {
  build?: string | { context: string };
  stop_grace_period?: string;
  image?: string;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

function loadYaml(file: string): unknown {
  return parseYaml(readFileSync(file, 'utf8'));
}

/**
 * Compose's interpolation with no variable set: `${NAME:-default}` is the default, `$$` a `$`,
 * and a required `${NAME:?message}` stands as `<NAME>` (compose would refuse to start).
 */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (match, name: string, kind: string | undefined, rest: string | undefined) =>
    match === '$$' ? '$' : kind?.endsWith('?') ? `<${name}>` : (rest ?? ''),
  );
}

function env(service: Service): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
}

function text(value: string | string[] | undefined): string {
  return interpolate(Array.isArray(value) ? value.join(' ') : (value ?? ''));
}

/** The container side of a `host:container` port mapping. */
function containerPorts(service: Service): string[] {
  return (service.ports ?? []).map((p) => p.split(':').at(-1)!);
}

describe('docker-compose.yml', () => {
  const compose = loadYaml(join(ROOT, 'docker-compose.yml')) as ComposeFile;
  const services = compose.services;
  const runtime = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).at(-1)!;
  const imageEnv = Object.assign({}, ...runtime.instructions.flatMap((i) => (i.kind === 'env' ? [i.vars] : []))) as Record<string, string>;
  const imageVolumes = runtime.instructions.flatMap((i) => (i.kind === 'volume' ? i.paths : []));

  it('has Folio, MinIO and Varnish, and every dependency names a service', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['folio', 'minio', 'varnish']));
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) expect(services, `${name} depends on ${dependency}`).toHaveProperty([dependency]);
    }
  });

  it('builds Folio from this repository and keeps its data in the image volume on the image port', () => {
    const folio = services.folio!;
    const context = typeof folio.build === 'string' ? folio.build : folio.build?.context;
    expect(context).toBe('.');
    expect(existsSync(join(ROOT, context!, 'Dockerfile'))).toBe(true);
    expect(imageVolumes).toContain(imageEnv.FOLIO_DATA_DIR);
    const dataVolume = (folio.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === imageEnv.FOLIO_DATA_DIR);
    expect(dataVolume, 'a volume on the data dir').toBeDefined();
    expect(compose.volumes ?? {}).toHaveProperty([dataVolume![0]!]);
    expect(containerPorts(folio)).toContain(env(folio).PORT ?? imageEnv.PORT);
  });

  it('points Folio at the MinIO service, as the scoped user the one-shot makes, in the bucket it creates and opens to readers', () => {
    const folio = env(services.folio!);
    const minio = env(services.minio!);
    expect(folio.FOLIO_STORAGE).toBe('s3');
    const endpoint = new URL(folio.FOLIO_S3_ENDPOINT!);
    expect(endpoint.hostname).toBe('minio');
    expect(endpoint.port).toBe('9000'); // MinIO's S3 port when `server` has no --address
    expect(text(services.minio!.command)).not.toContain('--address');
    expect(folio.FOLIO_S3_FORCE_PATH_STYLE).toBe('true');
    // Never MinIO's root credentials (issue 27 B11): a user of its own, limited to the bucket.
    expect(folio.AWS_ACCESS_KEY_ID).not.toBe(minio.MINIO_ROOT_USER);
    expect(folio.AWS_SECRET_ACCESS_KEY).not.toBe(minio.MINIO_ROOT_PASSWORD);
    // MinIO refuses a root password, and a user's secret key, under 8 characters.
    expect(minio.MINIO_ROOT_PASSWORD!.length).toBeGreaterThanOrEqual(8);
    expect(folio.AWS_SECRET_ACCESS_KEY!.length).toBeGreaterThanOrEqual(8);

    const [setupName, setup] = Object.entries(services).find(([, s]) => text(s.command).includes('mc mb'))!;
    const setupEnv = env(setup);
    expect(setupEnv.FOLIO_S3_ACCESS_KEY).toBe(folio.AWS_ACCESS_KEY_ID);
    expect(setupEnv.FOLIO_S3_SECRET_KEY).toBe(folio.AWS_SECRET_ACCESS_KEY);
    // The same variables set both sides: an operator's .env changes them together.
    expect(services.folio!.environment!.AWS_ACCESS_KEY_ID).toBe(setup.environment!.FOLIO_S3_ACCESS_KEY);
    expect(services.folio!.environment!.AWS_SECRET_ACCESS_KEY).toBe(setup.environment!.FOLIO_S3_SECRET_KEY);
    expect(services.folio!.depends_on?.[setupName]?.condition).toBe('service_completed_successfully');
    expect(setup.depends_on?.minio?.condition).toBe('service_healthy');
    const script = text(setup.command);
    expect(script).toContain(`mc alias set store ${folio.FOLIO_S3_ENDPOINT} "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD"`);
    expect(/mc mb --ignore-existing store\/(\S+)/.exec(script)?.[1]).toBe(folio.FOLIO_S3_BUCKET);

    const policyText = /<<'POLICY'\n([\s\S]*?)\nPOLICY\n/.exec(script)?.[1];
    const policy = JSON.parse(policyText!) as { Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }> };
    const bucketArn = `arn:aws:s3:::${folio.FOLIO_S3_BUCKET}`;
    expect(policy.Statement).toContainEqual(expect.objectContaining({ Effect: 'Allow', Action: ['s3:GetObject'], Resource: [`${bucketArn}/*`] }));
    expect(policy.Statement).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: ['s3:GetObject'], Resource: [`${bucketArn}/_backups/*`] }));
    expect(policy.Statement.flatMap((s) => (s.Effect === 'Allow' ? s.Action : []))).toEqual(['s3:GetObject']);
    expect(script).toContain(`mc anonymous set-json /tmp/read-sites.json store/${folio.FOLIO_S3_BUCKET}`);

    // Folio's user: read, write, delete and list this bucket, nothing else.
    const appPolicyText = /cat > \/tmp\/folio-app\.json <<'POLICY'\n([\s\S]*?)\nPOLICY\n/.exec(script)?.[1];
    const appPolicy = JSON.parse(appPolicyText!) as { Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }> };
    expect(appPolicy.Statement.every((st) => st.Effect === 'Allow' && st.Resource.every((r) => r === bucketArn || r === `${bucketArn}/*`))).toBe(true);
    const allowed = appPolicy.Statement.flatMap((st) => st.Action).sort();
    expect(allowed).toEqual(['s3:DeleteObject', 's3:GetBucketLocation', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(script).toContain('mc admin policy create store folio-app /tmp/folio-app.json');
    expect(script).toContain('mc admin user add store "$FOLIO_S3_ACCESS_KEY" "$FOLIO_S3_SECRET_KEY"');
    expect(script).toContain('mc admin policy attach store folio-app --user "$FOLIO_S3_ACCESS_KEY"');
  });

  it('gives Folio a stop grace period longer than its shutdown bound, and publishes /metrics only behind a token', () => {
    const folio = services.folio!;
    const grace = /^(\d+)s$/.exec(folio.stop_grace_period ?? '');
    expect(grace, 'stop_grace_period in seconds').not.toBeNull();
    const shutdownSeconds = Number(env(folio).FOLIO_SHUTDOWN_TIMEOUT ?? 20);
    expect(Number(grace![1])).toBeGreaterThan(shutdownSeconds);
    // Port 3000 carries /metrics: the token has no default, so compose refuses to start without one.
    expect(containerPorts(folio).length).toBeGreaterThan(0);
    expect(folio.environment!.FOLIO_METRICS_TOKEN).toMatch(/^\$\{FOLIO_METRICS_TOKEN:\?[^}]+\}$/);
  });

  it('purges the Varnish service on the port it listens on, and Varnish loads the shipped VCL', () => {
    const folio = env(services.folio!);
    const varnish = services.varnish!;
    expect(folio.FOLIO_CDN).toBe('http-purge');
    const purge = new URL(folio.FOLIO_CDN_PURGE_URL!);
    expect(purge.hostname).toBe('varnish');
    // The official image listens on 80 (docker-varnish-entrypoint: -a http=:80).
    expect(purge.port || '80').toBe('80');
    expect(containerPorts(varnish)).toContain('80');
    expect(varnish.image).toMatch(/^varnish:\d/);
    expect(varnish.volumes).toContain('./deploy/varnish/folio.vcl:/etc/varnish/default.vcl:ro');
    // The VCL reads the service domain from its environment: the same setting as Folio's.
    expect(varnish.environment!.FOLIO_SERVICE_DOMAIN).toBe(services.folio!.environment!.FOLIO_SERVICE_DOMAIN);
    expect(readFileSync(join(ROOT, 'deploy/varnish/folio.vcl'), 'utf8')).toContain('std.getenv("FOLIO_SERVICE_DOMAIN")');
  });
});
