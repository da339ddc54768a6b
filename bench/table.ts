/** One row of the `npm run bench` table. Every bench module returns rows; run.ts prints them. */
export interface BenchRow {
  area: string;
  measure: string;
  value: string;
  target?: string;
}

export function printTable(rows: BenchRow[]): void {
  const header: BenchRow = { area: 'area', measure: 'measure', value: 'value', target: 'target' };
  const all = [header, ...rows];
  const width = (pick: (r: BenchRow) => string): number => Math.max(...all.map((r) => pick(r).length));
  const w = [width((r) => r.area), width((r) => r.measure), width((r) => r.value), width((r) => r.target ?? '')];
  const line = (r: BenchRow): string =>
    `| ${r.area.padEnd(w[0]!)} | ${r.measure.padEnd(w[1]!)} | ${r.value.padStart(w[2]!)} | ${(r.target ?? '').padEnd(w[3]!)} |`;
  console.log(line(header));
  console.log(`|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}
