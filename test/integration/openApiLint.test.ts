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

const spectralCli = join(process.cwd(), 'node_modules/@stoplight/spectral-cli/dist/index.js');

interface SpectralProblem {
  code: string;
  path: string[];
  message: string;
  severity: number;
}

/** `spectral lint` of a document file with the whole `spectral:oas` ruleset (.spectral.yaml). */
async function spectral(file: string): Promise<SpectralProblem[]> {
  const out = await run(
    process.execPath,
    [spectralCli, 'lint', file, '--ruleset', join(process.cwd(), '.spectral.yaml'), '--format=json', '--quiet', '--fail-severity=hint'],
    {
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(out.stdout) as SpectralProblem[];
}

/**
 * Spectral's oas3-operation-security-defined reads bearer's scope list as OAuth scopes, which an
 * http scheme has none of; OpenAPI 3.1 allows role names there (the operation's `x-scope`).
 * Only that exact case is set aside.
 */
function bearerScopeFalsePositive(doc: { paths: Record<string, Record<string, { 'x-scope'?: string }>> }, problem: SpectralProblem): boolean {
  const [root, path, method, security, , scheme] = problem.path;
  if (problem.code !== 'oas3-operation-security-defined' || root !== 'paths' || security !== 'security' || scheme !== 'bearer') return false;
  const scope = doc.paths[path ?? '']?.[method ?? '']?.['x-scope'];
  return scope !== undefined && problem.message === `"${scope}" must be listed among scopes.`;
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

describe('Spectral (spectral:oas) lint of GET /v1/openapi.json', () => {
  it('finds nothing but the OpenAPI 3.1 bearer-scope false positive: every operation described, a contact named (with and without a metrics token)', async () => {
    expect(apps).toHaveLength(2);
    for (const [index, app] of apps.entries()) {
      const doc = await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json();
      const file = join(dir, `spectral-${index}.json`);
      writeFileSync(file, JSON.stringify(doc));
      const problems = await spectral(file);
      const real = problems.filter((problem) => !bearerScopeFalsePositive(doc, problem));
      expect(real.map((p) => `${p.code} ${p.path.join('.')}: ${p.message}`)).toEqual([]);
      // The scoped operations are all there is to set aside (the filter is not hiding a crash).
      expect(problems.length).toBeGreaterThanOrEqual(30);
    }
  }, 180_000);

  it('reports an operation without a description and a document without contact (the check is real)', async () => {
    const doc = await (await fetch(`${apps[0]!.baseUrl}/v1/openapi.json`)).json();
    delete doc.paths['/v1/posts'].post.description;
    delete doc.info.contact;
    const file = join(dir, 'spectral-broken.json');
    writeFileSync(file, JSON.stringify(doc));
    const codes = (await spectral(file)).filter((problem) => !bearerScopeFalsePositive(doc, problem)).map((p) => `${p.code} ${p.path.join('.')}`);
    expect(codes.sort()).toEqual(['info-contact info', 'operation-description paths./v1/posts.post']);
  }, 120_000);
});
