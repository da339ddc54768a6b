/**
 * Builds the stages of a Dockerfile without a Docker engine, for the build-context test: each
 * stage gets a folder standing for its `/`; COPY takes files from the build context as filtered
 * by .dockerignore (or from an earlier stage's folder), and RUN steps are run for real where
 * that is possible here and emulated where it is not:
 *
 * - `npm ci` does not download: the stage's `node_modules` becomes a symlink to the checkout's
 *   installed one, after checking that the copied package.json and package-lock.json agree
 *   (npm ci refuses them otherwise) and that the checkout holds what the lockfile names. Without
 *   `--ignore-scripts` it then runs the `prepare` script for real, as npm ci does.
 * - `npm rebuild <pkg>` checks the package is installed (the checkout's native build is used).
 * - `npm run <script>` runs for real in the stage's working directory.
 * - `npm prune --omit=dev` replaces node_modules by a folder holding only the lockfile's
 *   production packages (symlinks into the checkout), so a runtime import of a devDependency
 *   fails as it would in the image.
 * - `mkdir -p`, `chown` (checks the path exists; ownership is not reproduced) and `ln -s` act
 *   inside the stage's folder.
 * Any other command fails the build with a message saying the test must be taught it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, lstat, mkdir, readdir, readFile, readlink, rm, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import type { DockerIgnore } from './dockerignore.js';
import type { Stage } from './dockerfile.js';

export interface BuildContext {
  dir: string;
  ignore: DockerIgnore;
}

export interface BuiltStage {
  name: string | null;
  /** Host folder standing for the stage's filesystem root. */
  root: string;
  /** Container path of the last WORKDIR. */
  workdir: string;
  env: Record<string, string>;
  user: string | null;
  volumes: string[];
  cmd: string[] | null;
  healthcheck: string[] | string | null;
}

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface RunState {
  stage: BuiltStage;
  /** The checkout's installed node_modules, standing in for what `npm ci` would download. */
  checkoutModules: string;
  installScriptsSkipped: boolean;
  rebuilt: Set<string>;
}

/** Where a container path of `stage` lives on this machine. */
export function hostPath(stage: BuiltStage, containerPath: string): string {
  return join(stage.root, posix.resolve(stage.workdir, containerPath));
}

/**
 * Builds `stage` into `root`. `earlier` holds the stages already built, by name and by index,
 * for `COPY --from`.
 */
export async function buildStage(
  stage: Stage,
  root: string,
  context: BuildContext,
  earlier: ReadonlyMap<string, BuiltStage>,
  checkoutModules: string,
): Promise<BuiltStage> {
  const built: BuiltStage = { name: stage.name, root, workdir: '/', env: {}, user: null, volumes: [], cmd: null, healthcheck: null };
  const state: RunState = { stage: built, checkoutModules, installScriptsSkipped: false, rebuilt: new Set() };
  await mkdir(root, { recursive: true });
  for (const instruction of stage.instructions) {
    switch (instruction.kind) {
      case 'workdir':
        built.workdir = posix.resolve(built.workdir, instruction.path);
        await mkdir(hostPath(built, '.'), { recursive: true });
        break;
      case 'copy': {
        const { from, sources, dest, line } = instruction;
        const source = from === null ? null : earlier.get(from);
        if (from !== null && !source) throw new Error(`Dockerfile line ${line}: COPY --from=${from} names no earlier stage`);
        const hostDest = hostPath(built, dest);
        for (const src of sources) {
          if (source) await copyFromStage(source, src, hostDest, dest.endsWith('/'), line);
          else await copyFromContext(context, src, hostDest, dest.endsWith('/'), line);
        }
        break;
      }
      case 'run':
        for (const words of splitCommands(instruction.command, instruction.line)) await runCommand(words, state, instruction.line);
        break;
      case 'env':
        Object.assign(built.env, instruction.vars);
        break;
      case 'user':
        built.user = instruction.user;
        break;
      case 'volume':
        built.volumes.push(...instruction.paths);
        break;
      case 'cmd':
        built.cmd = instruction.argv;
        break;
      case 'healthcheck':
        built.healthcheck = instruction.command;
        break;
      case 'expose':
        break;
    }
  }
  if (state.installScriptsSkipped) await assertInstallScriptsRebuilt(state);
  return built;
}

/** `a && b && c` into argv lists; quotes, pipes, `;`, `||` and variables are refused. */
function splitCommands(command: string, line: number): string[][] {
  if (/[;|'"`$<>()\\]/.test(command)) throw new Error(`Dockerfile line ${line}: RUN ${command}: only plain commands joined by && can be reproduced here`);
  return command.split('&&').map((part) => part.trim().split(/\s+/));
}

async function runCommand(words: string[], state: RunState, line: number): Promise<void> {
  const [tool, sub, ...rest] = words;
  const stage = state.stage;
  const cwd = hostPath(stage, '.');
  const where = `Dockerfile line ${line}: ${words.join(' ')}`;
  if (tool === 'npm' && sub === 'ci') {
    const flags = new Set(rest);
    for (const flag of flags)
      if (!['--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev'].includes(flag)) throw new Error(`${where}: flag ${flag} is not reproduced here`);
    const lock = await readLockfile(cwd, where);
    await assertLockMatchesManifest(cwd, lock, where);
    await assertCheckoutHolds(lock, state.checkoutModules, where);
    if (flags.has('--omit=dev')) await linkProductionModules(cwd, lock, state.checkoutModules);
    else await symlink(state.checkoutModules, join(cwd, 'node_modules'));
    if (flags.has('--ignore-scripts')) state.installScriptsSkipped = true;
    else if ((await readManifest(cwd)).scripts?.prepare) await exec('npm', ['run', 'prepare'], cwd, stage.env, where);
  } else if (tool === 'npm' && sub === 'rebuild' && rest.length > 0) {
    for (const name of rest) {
      if (!existsSync(join(cwd, 'node_modules', name, 'package.json'))) throw new Error(`${where}: ${name} is not installed`);
      state.rebuilt.add(name);
    }
  } else if (tool === 'npm' && sub === 'run' && rest.length > 0) {
    await exec('npm', ['run', ...rest], cwd, stage.env, where);
  } else if (tool === 'npm' && sub === 'prune' && rest.includes('--omit=dev')) {
    await linkProductionModules(cwd, await readLockfile(cwd, where), state.checkoutModules);
  } else if (tool === 'mkdir' && sub === '-p') {
    for (const path of rest) await mkdir(hostPath(stage, path), { recursive: true });
  } else if (tool === 'chown' && rest.length > 0) {
    for (const path of rest) if (!existsSync(hostPath(stage, path))) throw new Error(`${where}: ${path} does not exist`);
  } else if (tool === 'ln' && sub === '-s' && rest.length === 2) {
    const [target, link] = rest as [string, string];
    const hostLink = hostPath(stage, link);
    await mkdir(dirname(hostLink), { recursive: true });
    await symlink(hostPath(stage, target), hostLink);
  } else {
    throw new Error(`${where}: test/support/docker/imageBuild.ts does not know how to reproduce this command; teach it`);
  }
}

/**
 * Install scripts that do nothing the app needs, so skipping them is the point: @scarf/scarf
 * (pulled in by swagger-ui-dist) only reports the install to an analytics service.
 */
const SCRIPTS_NOT_NEEDED = new Set(['@scarf/scarf']);

/**
 * `--ignore-scripts` also skips the install scripts of dependencies (better-sqlite3 builds its
 * native binding in one); each production package that has one must be rebuilt by name.
 */
async function assertInstallScriptsRebuilt(state: RunState): Promise<void> {
  const lock = await readLockfile(hostPath(state.stage, '.'), 'npm ci --ignore-scripts');
  const missing = Object.entries(lock.packages)
    .filter(([key, pkg]) => pkg.hasInstallScript && !pkg.dev && key.startsWith('node_modules/'))
    .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name) => !state.rebuilt.has(name) && !SCRIPTS_NOT_NEEDED.has(name));
  if (missing.length > 0) {
    throw new Error(`npm ci --ignore-scripts skipped the install scripts of ${missing.join(', ')}, and no \`npm rebuild\` in the stage runs them`);
  }
}

interface Lockfile {
  packages: Record<string, LockPackage>;
}

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

async function readLockfile(cwd: string, where: string): Promise<Lockfile> {
  const file = join(cwd, 'package-lock.json');
  if (!existsSync(file)) throw new Error(`${where}: no package-lock.json in the working directory (npm ci needs it)`);
  return JSON.parse(await readFile(file, 'utf8')) as Lockfile;
}

async function readManifest(cwd: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8')) as Manifest;
}

async function assertLockMatchesManifest(cwd: string, lock: Lockfile, where: string): Promise<void> {
  if (!existsSync(join(cwd, 'package.json'))) throw new Error(`${where}: no package.json in the working directory`);
  const manifest = await readManifest(cwd);
  const root = lock.packages[''] ?? {};
  for (const field of ['dependencies', 'devDependencies'] as const) {
    const inManifest = JSON.stringify(sortKeys(manifest[field] ?? {}));
    const inLock = JSON.stringify(sortKeys(root[field] ?? {}));
    if (inManifest !== inLock)
      throw new Error(`${where}: package.json ${field} and package-lock.json disagree (npm ci would refuse): ${inManifest} vs ${inLock}`);
  }
}

/** The checkout's node_modules stands in for the download only if it holds the locked versions. */
async function assertCheckoutHolds(lock: Lockfile, checkoutModules: string, where: string): Promise<void> {
  const wrong: string[] = [];
  for (const [name, pkg] of topLevelPackages(lock)) {
    const manifest = join(checkoutModules, name, 'package.json');
    if (!existsSync(manifest)) {
      if (!pkg.optional) wrong.push(`${name} missing`);
      continue;
    }
    const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version?: string };
    if (version !== pkg.version) wrong.push(`${name} ${version} (lockfile: ${pkg.version})`);
  }
  if (wrong.length > 0) throw new Error(`${where}: the checkout's node_modules does not match package-lock.json (run npm ci): ${wrong.join(', ')}`);
}

function topLevelPackages(lock: Lockfile): Array<[string, LockPackage]> {
  return Object.entries(lock.packages).flatMap(([key, pkg]): Array<[string, LockPackage]> => {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key);
    return match ? [[match[1]!, pkg]] : [];
  });
}

/** node_modules as `npm prune --omit=dev` leaves it: the lockfile's non-dev packages only. */
async function linkProductionModules(cwd: string, lock: Lockfile, checkoutModules: string): Promise<void> {
  const modules = join(cwd, 'node_modules');
  // Never recurse through the symlink: it points at the checkout's own node_modules.
  const existing = await lstat(modules).catch(() => null);
  if (existing?.isSymbolicLink()) await unlink(modules);
  else if (existing) await rm(modules, { recursive: true });
  await mkdir(modules);
  for (const [name, pkg] of topLevelPackages(lock)) {
    if (pkg.dev) continue;
    const target = join(checkoutModules, name);
    if (!existsSync(target) && pkg.optional) continue;
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(target, join(modules, name));
  }
}

async function copyFromContext(context: BuildContext, src: string, hostDest: string, intoFolder: boolean, line: number): Promise<void> {
  const rel = posix.normalize(src).replace(/^\/+/, '').replace(/\/+$/, '') || '.';
  if (rel === '..' || rel.startsWith('../')) throw new Error(`Dockerfile line ${line}: COPY ${src} reaches outside the build context`);
  if (rel !== '.' && context.ignore.excludes(rel)) throw new Error(`Dockerfile line ${line}: COPY ${src}: left out of the build context by .dockerignore`);
  const hostSrc = join(context.dir, rel);
  const info = await lstat(hostSrc).catch(() => null);
  if (!info) throw new Error(`Dockerfile line ${line}: COPY ${src}: not found in the build context`);
  if (info.isDirectory()) await copyContextTree(context, rel, hostDest);
  else await copyEntry(hostSrc, await fileDestination(hostDest, basename(rel), intoFolder));
}

/** A folder's contents (not the folder itself), minus what .dockerignore leaves out. */
async function copyContextTree(context: BuildContext, rel: string, hostDest: string): Promise<void> {
  await mkdir(hostDest, { recursive: true });
  for (const entry of await readdir(join(context.dir, rel), { withFileTypes: true })) {
    const childRel = rel === '.' ? entry.name : `${rel}/${entry.name}`;
    const excluded = context.ignore.excludes(childRel);
    if (entry.isDirectory()) {
      if (excluded && !context.ignore.hasExceptionsUnder(childRel)) continue;
      await copyContextTree(context, childRel, join(hostDest, entry.name));
    } else if (!excluded) {
      await copyEntry(join(context.dir, childRel), join(hostDest, entry.name));
    }
  }
}

async function copyFromStage(source: BuiltStage, src: string, hostDest: string, intoFolder: boolean, line: number): Promise<void> {
  // COPY --from paths are absolute in the other stage, whatever its WORKDIR.
  const hostSrc = join(source.root, posix.resolve('/', src));
  const info = await lstat(hostSrc).catch(() => null);
  if (!info) throw new Error(`Dockerfile line ${line}: COPY --from: ${src} does not exist in stage ${source.name ?? '?'}`);
  if (info.isDirectory()) {
    await mkdir(hostDest, { recursive: true });
    await cp(hostSrc, hostDest, { recursive: true, verbatimSymlinks: true });
  } else {
    await copyEntry(hostSrc, await fileDestination(hostDest, basename(src), intoFolder));
  }
}

async function fileDestination(hostDest: string, name: string, intoFolder: boolean): Promise<string> {
  const existing = await lstat(hostDest).catch(() => null);
  if (intoFolder || existing?.isDirectory()) {
    await mkdir(hostDest, { recursive: true });
    return join(hostDest, name);
  }
  await mkdir(dirname(hostDest), { recursive: true });
  return hostDest;
}

/** A file with its mode (an executable bin stays executable), or a symlink as a symlink. */
async function copyEntry(from: string, to: string): Promise<void> {
  const info = await lstat(from);
  if (info.isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
}

function exec(command: string, args: string[], cwd: string, stageEnv: Record<string, string>, where: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv(stageEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${where}: exited with ${code ?? signal}:\n${output}`));
    });
  });
}

/** What a process in the image sees: the stage's ENV over a minimal host environment. */
export function childEnv(stageEnv: Record<string, string>, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const host: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) host[name] = value;
  }
  return { ...host, ...stageEnv, ...overrides };
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
