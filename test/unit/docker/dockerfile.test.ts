import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDockerfile } from '../../support/docker/dockerfile.js';
import { scriptEnvOf } from '../../../bench/harness/scriptEnv.js';

describe('parseDockerfile', () => {
  it('reads stages, continuations, COPY flags and both CMD forms of HEALTHCHECK', () => {
    const stages = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'FROM node:20 AS build',
        'WORKDIR /app',
        'COPY package.json package-lock.json ./',
        'RUN npm ci \\',
        '  # a comment inside a continuation',
        '  && npm run build',
        '',
        'FROM node:20-slim',
        'ENV A=1 B=two',
        'COPY --from=build --chown=node:node /app/dist ./dist',
        'USER node',
        'VOLUME ["/app/data"]',
        'HEALTHCHECK --interval=30s CMD node -e "x()"',
        'CMD ["node", "dist/main.js"]',
      ].join('\n'),
    );
    expect(stages.map((s) => [s.base, s.name])).toEqual([
      ['node:20', 'build'],
      ['node:20-slim', null],
    ]);
    expect(stages[0]!.instructions).toEqual([
      { kind: 'workdir', path: '/app', line: 3 },
      { kind: 'copy', from: null, sources: ['package.json', 'package-lock.json'], dest: './', line: 4 },
      { kind: 'run', command: 'npm ci    && npm run build', line: 5 },
    ]);
    expect(stages[1]!.instructions).toEqual([
      { kind: 'env', vars: { A: '1', B: 'two' }, line: 10 },
      { kind: 'copy', from: 'build', sources: ['/app/dist'], dest: './dist', line: 11 },
      { kind: 'user', user: 'node', line: 12 },
      { kind: 'volume', paths: ['/app/data'], line: 13 },
      { kind: 'healthcheck', command: 'node -e "x()"', line: 14 },
      { kind: 'cmd', argv: ['node', 'dist/main.js'], line: 15 },
    ]);
  });

  it('refuses what the build-context test cannot reproduce instead of skipping it', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a template.
    const refused = ['ADD src ./src', 'ARG VERSION', 'COPY src/*.ts ./', 'COPY ${DIR} ./', 'CMD node main.js', 'ENV A="x y"', 'COPY a b c'];
    for (const line of refused) expect(() => parseDockerfile(`FROM node:20\n${line}\n`), line).toThrow(/line 2/);
    expect(() => parseDockerfile('WORKDIR /app\n')).toThrow(/before FROM/);
  });
});

/** Whether `version` satisfies an npm range made of `>=x.y`, `<x` comparators, `||` alternatives. */
function satisfies(version: string, range: string): boolean {
  const parts = (v: string): number[] => v.split('.').map(Number).concat(0, 0).slice(0, 3);
  const compare = (a: string, b: string): number => {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return 0;
  };
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const [, op, v] = /^(>=|<=|>|<|=)?(\d+(?:\.\d+){0,2})$/.exec(comparator)!;
        const c = compare(version, v!);
        return op === '>=' ? c >= 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '<' ? c < 0 : c === 0;
      }),
  );
}

describe('the shipped Dockerfile (issue 27 B11)', () => {
  const root = new URL('../../../', import.meta.url);
  const stages = parseDockerfile(readFileSync(new URL('Dockerfile', root), 'utf8'));
  const engines = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }).engines.node;

  it('builds and runs on Node 24, the current LTS, in every stage', () => {
    for (const stage of stages) expect(stage.base).toMatch(/^node:24-/);
  });

  it('keeps package.json engines open to the Node 20 that CI runs, 22 and 24', () => {
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '24.0.0', '24.11.1']) expect(satisfies(version, engines), version).toBe(true);
    for (const version of ['18.20.0', '20.18.3']) expect(satisfies(version, engines), version).toBe(false);
    expect(satisfies(process.versions.node, engines), `this machine's node ${process.versions.node}`).toBe(true);
  });

  it('runs the server with the variables npm start sets before it (glibc malloc settings; docs/operations.md#memory)', () => {
    const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string; folio: string } }).scripts;
    expect(scripts.start).toMatch(/&&\s*(\w+=\S+\s+)+node dist\/server\/main\.js$/);
    const startVars = scriptEnvOf(scripts.start);
    expect(startVars).toHaveProperty('MALLOC_TRIM_THRESHOLD_');
    const runtime = stages.at(-1)!;
    const imageVars = Object.assign({}, ...runtime.instructions.flatMap((i) => (i.kind === 'env' ? [i.vars] : []))) as Record<string, string>;
    expect(imageVars).toMatchObject(startVars);
    // The CLI's whole-blog commands (a reindex) gain the most from it: `npm run folio` sets the same.
    expect(scripts.folio).toMatch(/^(\w+=\S+\s+)+node bin\/folio\.js$/);
    expect(scriptEnvOf(scripts.folio)).toEqual(startVars);
  });
});

describe('scriptEnvOf', () => {
  it("reads the variables before the last command's node, a value holding = whole", () => {
    expect(scriptEnvOf('npm run build --silent && A=1 B=x=y node dist/server/main.js')).toEqual({ A: '1', B: 'x=y' });
    expect(scriptEnvOf('A=1 node bin/folio.js')).toEqual({ A: '1' });
    // Only the last command's: a variable of an earlier one does not reach node.
    expect(scriptEnvOf('A=1 npm run build && node dist/server/main.js')).toEqual({});
  });
});
