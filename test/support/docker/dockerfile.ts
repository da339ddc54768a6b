/**
 * A Dockerfile reader for the build-context test: the instructions our Dockerfile uses, parsed
 * the way BuildKit reads them (comments, `\` continuations, stages named with AS, COPY flags,
 * exec- and shell-form CMD). Anything else (ADD, ARG, variables, globs in COPY…) is refused with
 * an error, so a Dockerfile the test cannot reproduce fails the test instead of passing untested.
 */

export type Instruction =
  | { kind: 'workdir'; path: string; line: number }
  | { kind: 'copy'; from: string | null; sources: string[]; dest: string; line: number }
  | { kind: 'run'; command: string; line: number }
  | { kind: 'env'; vars: Record<string, string>; line: number }
  | { kind: 'user'; user: string; line: number }
  | { kind: 'volume'; paths: string[]; line: number }
  | { kind: 'cmd'; argv: string[]; line: number }
  | { kind: 'healthcheck'; command: string[] | string; line: number }
  | { kind: 'expose'; ports: string[]; line: number };

export interface Stage {
  base: string;
  name: string | null;
  instructions: Instruction[];
}

const COPY_FLAGS = /^--(from|chown|chmod)=(\S+)$/;

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const { keyword, args, line } of logicalLines(text)) {
    if (keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!match) throw unsupported(line, `FROM ${args}`);
      stages.push({ base: match[1]!, name: match[2] ?? null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${line}: ${keyword} before FROM`);
    if (/\$/.test(args) && keyword !== 'RUN' && keyword !== 'HEALTHCHECK') throw unsupported(line, `variables in ${keyword}`);
    stage.instructions.push(parseInstruction(keyword, args, line));
  }
  if (stages.length === 0) throw new Error('Dockerfile has no FROM');
  return stages;
}

function parseInstruction(keyword: string, args: string, line: number): Instruction {
  switch (keyword) {
    case 'WORKDIR':
      return { kind: 'workdir', path: args, line };
    case 'COPY': {
      const words = args.split(/\s+/);
      let from: string | null = null;
      while (words[0]?.startsWith('--')) {
        const flag = COPY_FLAGS.exec(words.shift()!);
        if (!flag) throw unsupported(line, `COPY ${args}`);
        if (flag[1] === 'from') from = flag[2]!;
      }
      if (words.length < 2 || words.some((w) => /[*?[\]"]/.test(w))) throw unsupported(line, `COPY ${args}`);
      const dest = words.pop()!;
      if (words.length > 1 && !dest.endsWith('/')) throw new Error(`Dockerfile line ${line}: COPY of several sources needs a destination ending in /`);
      return { kind: 'copy', from, sources: words, dest, line };
    }
    case 'RUN':
      if (args.startsWith('[') || args.startsWith('--')) throw unsupported(line, `RUN ${args}`);
      return { kind: 'run', command: args, line };
    case 'ENV': {
      const vars: Record<string, string> = {};
      for (const pair of args.split(/\s+/)) {
        const eq = pair.indexOf('=');
        if (eq <= 0 || /["']/.test(pair)) throw unsupported(line, `ENV ${args} (only unquoted NAME=value pairs)`);
        vars[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      return { kind: 'env', vars, line };
    }
    case 'USER':
      return { kind: 'user', user: args, line };
    case 'VOLUME':
      return { kind: 'volume', paths: args.startsWith('[') ? jsonArray(args, line) : args.split(/\s+/), line };
    case 'EXPOSE':
      return { kind: 'expose', ports: args.split(/\s+/), line };
    case 'CMD':
      if (!args.startsWith('[')) throw unsupported(line, 'shell-form CMD (the image should run node as PID 1 to get SIGTERM)');
      return { kind: 'cmd', argv: jsonArray(args, line), line };
    case 'HEALTHCHECK': {
      const match = /^((?:--\S+\s+)*)CMD\s+(.+)$/.exec(args);
      if (!match) throw unsupported(line, `HEALTHCHECK ${args}`);
      const command = match[2]!;
      return { kind: 'healthcheck', command: command.startsWith('[') ? jsonArray(command, line) : command, line };
    }
    default:
      throw unsupported(line, keyword);
  }
}

function* logicalLines(text: string): Generator<{ keyword: string; args: string; line: number }> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const start = i;
    let current = lines[i]!;
    if (/^\s*(#|$)/.test(current)) continue;
    // A trailing backslash continues the instruction; comment and blank lines inside it are dropped.
    while (/\\\s*$/.test(current) && i + 1 < lines.length) {
      i += 1;
      const next = lines[i]!;
      if (/^\s*(#|$)/.test(next)) continue;
      current = current.replace(/\\\s*$/, ' ') + next;
    }
    const match = /^\s*(\S+)\s*(.*?)\s*$/.exec(current)!;
    yield { keyword: match[1]!.toUpperCase(), args: match[2]!, line: start + 1 };
  }
}

function jsonArray(text: string, line: number): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw unsupported(line, text);
  return value;
}

function unsupported(line: number, what: string): Error {
  return new Error(`Dockerfile line ${line}: ${what} is not something test/support/docker can reproduce; teach it before using it`);
}
