/**
 * The Docker image, rebuilt without a Docker engine (none runs on these machines or in CI): the
 * Dockerfile and .dockerignore are parsed, each stage is assembled in a temporary folder from
 * exactly the files its COPY lines take (the context as .dockerignore leaves it, or an earlier
 * stage), the build stage's commands run (`npm ci` is stood in for by the checkout's installed
 * node_modules; see test/support/docker/imageBuild.ts), and the runtime stage's CMD is started
 * with node. A file the build or the server needs but the Dockerfile does not copy fails here.
 * Not covered: the base images, apt/npm downloads, file ownership, and `docker build` itself.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/harness/ports.js';
import { parseDockerfile } from '../support/docker/dockerfile.js';
import { parseDockerIgnore } from '../support/docker/dockerignore.js';
import { buildStage, childEnv, hostPath, type BuiltStage } from '../support/docker/imageBuild.js';
import { visit } from '../../bench/harness/visit.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILD_MS = 240_000;

interface Image {
  stages: BuiltStage[];
  runtime: BuiltStage;
}

let work: string | null = null;
let image: Promise<Image> | null = null;

/** Builds every stage once per file; each test awaits it, so a build failure fails each with its cause. */
function buildImage(): Promise<Image> {
  image ??= (async () => {
    work = await mkdtemp(join(tmpdir(), 'folio-image-'));
    const context = { dir: ROOT, ignore: parseDockerIgnore(dockerIgnoreText()) };
    const stages: BuiltStage[] = [];
    const byName = new Map<string, BuiltStage>();
    for (const [index, stage] of parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).entries()) {
      const built = await buildStage(stage, join(work, `stage-${index}`), context, byName, join(ROOT, 'node_modules'));
      stages.push(built);
      byName.set(String(index), built);
      if (stage.name) byName.set(stage.name, built);
    }
    return { stages, runtime: stages.at(-1)! };
  })();
  return image;
}

afterAll(async () => {
  // rm unlinks the node_modules symlinks; it never follows them into the checkout.
  if (work) await rm(work, { recursive: true, force: true });
});

/** Docker treats a missing .dockerignore as an empty one. */
function dockerIgnoreText(): string {
  const file = join(ROOT, '.dockerignore');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

/** The lockfile's packages; optional ones for other platforms (sharp's binaries) are not installed here, nor in the image. */
function lockfilePackages(): Array<{ name: string; dev: boolean }> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean }> };
  return Object.entries(lock.packages).flatMap(([key, pkg]) => {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key);
    if (!match || (pkg.optional && !existsSync(join(ROOT, key)))) return [];
    return [{ name: match[1]!, dev: pkg.dev === true }];
  });
}

describe('Docker image built from the Dockerfile and .dockerignore alone', () => {
  it('the build stage compiles src/ and bundles the server from the files it copies, and emits nothing else', { timeout: BUILD_MS }, async () => {
    const { stages } = await buildImage();
    const build = stages[0]!;
    const dist = hostPath(build, 'dist');
    // The production build is src/ alone, plus its server bundle and the dashboard's browser
    // assets: benches and test helpers stay out of the image.
    expect(readdirSync(dist).sort()).toEqual(['dashboard', 'server', 'src']);
    expect(existsSync(join(dist, 'dashboard', 'manifest.json'))).toBe(true);
    for (const entry of ['main.js', 'cliMain.js']) expect(existsSync(join(dist, 'src', entry)), entry).toBe(true);
    expect(existsSync(join(dist, 'server', 'main.js'))).toBe(true);
  });

  it('the runtime stage holds every compiled module, worker, template and migration, and no dev dependency', { timeout: BUILD_MS }, async () => {
    const { runtime } = await buildImage();
    const app = hostPath(runtime, '.');

    const sources = filesUnder(join(ROOT, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    const missing = sources.map((f) => join('dist', 'src', f.replace(/\.ts$/, '.js'))).filter((f) => !existsSync(join(app, f)));
    expect(missing).toEqual([]);

    // Worker threads are started by file path, never imported: name them explicitly.
    const workers = sources.flatMap((file) => {
      const text = readFileSync(join(ROOT, 'src', file), 'utf8');
      const names = [...[...text.matchAll(/compiledScript\('([\w/]+)'\)/g)].map((m) => m[1]!)];
      return names.map((name) => join('dist', 'src', `${name}.js`));
    });
    expect(workers.length).toBeGreaterThanOrEqual(4);
    for (const worker of workers) expect(existsSync(join(app, worker)), worker).toBe(true);

    // src/lib/paths.ts finds the package root by package.json + templates/ and reads migrations from src/db/migrations.
    expect(existsSync(join(app, 'package.json'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(app, 'dist', 'dashboard', 'manifest.json'), 'utf8')) as Record<string, string>;
    for (const file of Object.values(manifest)) expect(existsSync(join(app, 'dist', 'dashboard', file)), file).toBe(true);
    expect(filesUnder(join(app, 'templates')).sort()).toEqual(filesUnder(join(ROOT, 'templates')).sort());
    expect(filesUnder(join(app, 'src', 'db', 'migrations')).sort()).toEqual(filesUnder(join(ROOT, 'src', 'db', 'migrations')).sort());
    expect(existsSync(join(app, 'dist', 'bench')) || existsSync(join(app, 'dist', 'test')) || existsSync(join(app, 'test'))).toBe(false);

    const installed = new Set(
      readdirSync(join(app, 'node_modules')).flatMap((name) =>
        name.startsWith('@') ? readdirSync(join(app, 'node_modules', name)).map((n) => `${name}/${n}`) : [name],
      ),
    );
    const packages = lockfilePackages();
    expect(packages.filter((p) => p.dev && installed.has(p.name)).map((p) => p.name)).toEqual([]);
    expect(packages.filter((p) => !p.dev && !installed.has(p.name)).map((p) => p.name)).toEqual([]);
    await access(join(app, 'bin', 'folio.js'), constants.X_OK);

    // What the image promises: non-root, listening beyond loopback, data in the volume.
    expect(runtime.user).toBeTruthy();
    expect(runtime.user).not.toBe('root');
    expect(runtime.env.HOST).toBe('0.0.0.0');
    expect(runtime.volumes).toContain(runtime.env.FOLIO_DATA_DIR);
    expect(runtime.cmd).not.toBeNull();
    expect(runtime.healthcheck).not.toBeNull();
  });

  it('the runtime stage starts: first-start key, /healthz and the HEALTHCHECK, a published page, the folio CLI, clean SIGTERM', {
    timeout: BUILD_MS,
  }, async () => {
    const { runtime } = await buildImage();
    const port = await freePort();
    const dataDir = hostPath(runtime, runtime.env.FOLIO_DATA_DIR!);
    expect(statSync(dataDir).isDirectory()).toBe(true);
    // The image's environment, except loopback instead of 0.0.0.0 on a shared machine and a free port.
    const env = childEnv(runtime.env, {
      PORT: String(port),
      HOST: '127.0.0.1',
      FOLIO_DATA_DIR: dataDir,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    });
    const [command, ...args] = runtime.cmd!;
    const server = spawn(command === 'node' ? process.execPath : command!, args, { cwd: hostPath(runtime, '.'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(server);
    const running = (): true => {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}:\n${output.text}`);
      return true;
    };
    try {
      const key = await waitFor(
        () => running() && /API key: (\S+)/.exec(output.text)?.[1],
        60_000,
        () => `no first-start key:\n${output.text}`,
      );
      await waitFor(
        async () => running() && (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok,
        30_000,
        () => `no /healthz:\n${output.text}`,
      );
      // The API reference's files come from a production dependency the image must hold.
      const docs = await (await fetch(`http://127.0.0.1:${port}/v1/docs`)).text();
      for (const [, asset] of docs.matchAll(/src="([^"]+)"/g)) expect((await fetch(`http://127.0.0.1:${port}${asset}`)).status, asset).toBe(200);

      const healthcheck = runtime.healthcheck!;
      const probe = typeof healthcheck === 'string' ? await run('/bin/sh', ['-c', healthcheck], env) : await run(healthcheck[0]!, healthcheck.slice(1), env);
      expect(probe.code, probe.output).toBe(0);

      const api = (method: string, path: string, body: unknown, blogId?: string): Promise<Response> =>
        fetch(`http://127.0.0.1:${port}/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(blogId ? { 'x-blog-id': blogId } : {}) },
          body: JSON.stringify(body),
        });
      const blog = await api('POST', '/blogs', { slug: 'docker', name: 'Docker' });
      expect(blog.status).toBe(201);
      const { id: blogId } = (await blog.json()) as { id: string };
      const post = await api('POST', '/posts', { title: 'From the image', content: '# Built\n\nWith **templates**.', status: 'published' }, blogId);
      expect(post.status).toBe(201);
      // Rendered by the publish job (templates, markdown, the site store) and served by Host.
      const page = await waitFor(
        async () => {
          const res = await visit(`http://127.0.0.1:${port}`, `docker.localhost:${port}`, '/from-the-image');
          return res.status === 200 ? res.text : undefined;
        },
        30_000,
        () => `the published page never appeared:\n${output.text}`,
      );
      expect(page).toContain('<strong>templates</strong>');

      // The `folio` command the image links into PATH, on the same data dir.
      const cli = await run(hostPath(runtime, '/usr/local/bin/folio'), ['account', 'list', '--json'], env);
      expect(cli.code, cli.output).toBe(0);
      expect(JSON.parse(cli.stdout)).toHaveLength(1);
    } finally {
      if (server.exitCode === null) server.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => (server.exitCode !== null ? resolve(server.exitCode) : server.once('exit', resolve)));
    expect(code, output.text).toBe(0);
  });

  it('.dockerignore keeps dependencies, build output, local data, tests and benches out of the context', () => {
    const ignore = parseDockerIgnore(dockerIgnoreText());
    for (const path of [
      'node_modules',
      'node_modules/koa/package.json',
      'dist/src/main.js',
      'data/folio.db',
      'test/unit/config.test.ts',
      'bench/run.ts',
      '.git/HEAD',
      'npm-debug.log',
      'src/x.log',
    ]) {
      expect(ignore.excludes(path), path).toBe(true);
    }
    for (const path of ['package.json', 'package-lock.json', 'src/main.ts', 'src/db/migrations/001_init.sql', 'templates/layout.eta', 'bin/folio.js']) {
      expect(ignore.excludes(path), path).toBe(false);
    }
  });
});

function collect(child: ChildProcess): { text: string } {
  const sink = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => (sink.text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (sink.text += chunk.toString('utf8')));
  return sink;
}

async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs: number,
  describe: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, output: `${stdout}${stderr}${error && code === null ? String(error) : ''}` });
    });
  });
}
