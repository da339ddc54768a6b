import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

const run = promisify(execFile);
const cli = join(process.cwd(), 'node_modules/@redocly/cli/bin/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'folio-lint-'));
const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  rmSync(dir, { recursive: true, force: true });
});

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint` of a document file, with the rules in redocly.yaml. */
async function lintFile(file: string): Promise<LintReport> {
  // Exit status 1 when something is found: the report is on stdout either way.
  const out = await run(process.execPath, [cli, 'lint', file, '--format=json', '--config', join(process.cwd(), 'redocly.yaml')], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(out.stdout) as LintReport;
}

/** The lint of the document the running app serves. */
async function lint(app: TestApp, name: string): Promise<LintReport> {
  const res = await fetch(`${app.baseUrl}/v1/openapi.json`);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, await res.text());
  return lintFile(file);
}

const summary = (report: LintReport) => report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

describe('@redocly/cli lint of GET /v1/openapi.json', () => {
  it('finds zero errors and zero warnings, examples checked against their schemas', async () => {
    const app = await startTestApp();
    apps.push(app);
    const report = await lint(app, 'default');
    expect(summary(report)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);

  it('also with a metrics token configured (GET /metrics then has a security scheme of its own)', async () => {
    const app = await startTestApp({ env: { FOLIO_METRICS_TOKEN: 'secret-token-for-lint-0123456789' } });
    apps.push(app);
    const report = await lint(app, 'metrics-token');
    expect(summary(report)).toEqual([]);
  }, 60_000);

  it('reports an example that does not match its schema (the check is real)', async () => {
    const res = await fetch(`${apps[0]!.baseUrl}/v1/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, any>> };
    doc.paths['/v1/posts/{slug}']!.get.responses['200'].content['application/json'].example.status = 'archived';
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(doc));
    const report = await lintFile(file);
    expect(report.problems.map((p) => p.ruleId)).toContain('no-invalid-media-type-examples');
  }, 60_000);
});
