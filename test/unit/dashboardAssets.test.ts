import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DashboardAssets } from '../../src/http/dashboard/assets.js';

const dir = mkdtempSync(join(tmpdir(), 'folio-dashboard-assets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a missing build is reported as not built, never as an error', () => {
  const assets = new DashboardAssets(join(dir, 'absent'));
  expect(assets.built).toBe(false);
  expect(assets.url('shell.js')).toBeNull();
});

it('names the built file of a manifest entry under /dashboard/assets', () => {
  mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'built', 'manifest.json'), JSON.stringify({ 'shell.js': 'assets/shell-abc.js' }));
  writeFileSync(join(dir, 'built', 'assets', 'shell-abc.js'), 'export {};');
  const assets = new DashboardAssets(join(dir, 'built'));
  expect(assets.built).toBe(true);
  expect(assets.url('shell.js')).toBe('/dashboard/assets/shell-abc.js');
  expect(assets.url('editor.js')).toBeNull();
  expect(assets.url('__proto__')).toBeNull();
});
