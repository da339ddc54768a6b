/**
 * `node dist/bench/harness/longTasks.js <file.cpuprofile> [minMs]`: the stretches in which a V8
 * CPU profile (node --cpu-prof) never sampled the idle loop for at least `minMs` (default 50):
 * the event loop was held. Each is printed with its length, where it fell in the profile, and
 * the functions that took its time, ours (dist/) first by inclusive time, then any by self time.
 * Made to find what holds the loop under the soak (soakBench.ts), where no one request does.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface LongTask {
  startMs: number;
  ms: number;
  /** Functions of our own code by time inside them (callees included), most first. */
  ours: [string, number][];
  /** Any function by time spent in itself, most first. */
  self: [string, number][];
}

const label = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(dist|node_modules)\//, '$1/');
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
};

export function longTasks(profile: Profile, minMs = 50): LongTask[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const tasks: LongTask[] = [];
  let at = 0;
  let run: { start: number; ms: number; samples: [number, number][] } | null = null;
  const close = (): void => {
    if (run && run.ms >= minMs) {
      const ours = new Map<string, number>();
      const self = new Map<string, number>();
      for (const [id, ms] of run.samples) {
        const node = byId.get(id)!;
        self.set(label(node), (self.get(label(node)) ?? 0) + ms);
        const seen = new Set<string>();
        for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
          const frame = byId.get(cur)!;
          if (!/\/dist\/(src|server)\//.test(frame.callFrame.url)) continue;
          const name = label(frame);
          if (seen.has(name)) continue;
          seen.add(name);
          ours.set(name, (ours.get(name) ?? 0) + ms);
        }
      }
      const top = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]).slice(0, 8);
      tasks.push({ startMs: run.start, ms: run.ms, ours: top(ours), self: top(self) });
    }
    run = null;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    at += ms;
    const id = profile.samples[i]!;
    if (idle.has(id)) {
      close();
      continue;
    }
    run ??= { start: at, ms: 0, samples: [] };
    run.ms += ms;
    run.samples.push([id, ms]);
  }
  close();
  return tasks;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node dist/bench/harness/longTasks.js <file.cpuprofile> [minMs]');
    process.exit(2);
  }
  const tasks = longTasks(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 50));
  for (const task of tasks.sort((a, b) => b.ms - a.ms)) {
    console.log(`\n${task.ms.toFixed(0)} ms at ${(task.startMs / 1000).toFixed(1)} s`);
    for (const [name, ms] of task.ours) console.log(`  ours ${ms.toFixed(0).padStart(5)} ms  ${name}`);
    for (const [name, ms] of task.self.slice(0, 5)) console.log(`  self ${ms.toFixed(0).padStart(5)} ms  ${name}`);
  }
  // Over all of them: where the held time went, by our function (inclusive), most first.
  const total = new Map<string, number>();
  for (const task of tasks) for (const [name, ms] of task.ours) total.set(name, (total.get(name) ?? 0) + ms);
  console.log(
    `\n${tasks.length} stretches of ${Number(process.argv[3] ?? 50)} ms or more, ${tasks.reduce((sum, t) => sum + t.ms, 0).toFixed(0)} ms in all; ours, inclusive:`,
  );
  for (const [name, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
}
