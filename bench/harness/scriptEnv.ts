/**
 * The variables an npm script's last command sets before `node …` (`A=1 B=2 node x.js`): the
 * benches start the server and the CLI with those of `start` and `folio`, and a test checks that
 * the Docker image sets the same. A value may hold `=`.
 */
export function scriptEnvOf(command: string): Record<string, string> {
  const last = command.split('&&').pop()!;
  const assignments = /^\s*((?:\w+=\S+\s+)*)node /.exec(last)?.[1] ?? '';
  return Object.fromEntries(
    assignments
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}
