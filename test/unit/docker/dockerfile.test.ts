import { describe, expect, it } from 'vitest';
import { parseDockerfile } from '../../support/docker/dockerfile.js';

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
    const refused = ['ADD src ./src', 'ARG VERSION', 'COPY src/*.ts ./', 'COPY ${DIR} ./', 'CMD node main.js', 'ENV A="x y"', 'COPY a b c'];
    for (const line of refused) expect(() => parseDockerfile(`FROM node:20\n${line}\n`), line).toThrow(/line 2/);
    expect(() => parseDockerfile('WORKDIR /app\n')).toThrow(/before FROM/);
  });
});
