/**
 * Issue 27 B10: the plan of new accounts is FOLIO_DEFAULT_PLAN (enterprise unless set; it used
 * to be `free` for `folio account create`), validated like every setting, printed when an
 * account is made (CLI and first start), and the README's plan table is plans.ts's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { PLANS, planIncludes, planLimits, type Plan } from '../../src/domain/plans.js';
import { runCliCaptured } from '../support/runCliCaptured.js';
import { spawnServer } from '../support/spawnedServer.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';

let dataDir: string;
/** The CLI's data: the data dir, and on the PostgreSQL pass a database of its own. */
let dataEnv: Record<string, string>;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'folio-default-plan-'));
  dataEnv = { FOLIO_DATA_DIR: dataDir, ...(await freshDatabaseEnv()) };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('FOLIO_DEFAULT_PLAN', () => {
  it('is enterprise unless set, takes any plan, and names itself when wrong', () => {
    expect(loadConfig({}).defaultPlan).toBe('enterprise');
    for (const plan of PLANS) expect(loadConfig({ FOLIO_DEFAULT_PLAN: plan }).defaultPlan).toBe(plan);
    expect(() => loadConfig({ FOLIO_DEFAULT_PLAN: 'gold' })).toThrow(ConfigError);
    expect(() => loadConfig({ FOLIO_DEFAULT_PLAN: 'gold' })).toThrow(
      /^FOLIO_DEFAULT_PLAN: expected one of free, starter, creator, scale, enterprise, got "gold"$/,
    );
  });

  it('folio account create uses it, says so, and --plan wins', async () => {
    const unset = await runCliCaptured(['account', 'create'], dataEnv);
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout).toMatch(
      /^Created account \S+ on the enterprise plan \(the default; FOLIO_DEFAULT_PLAN or --plan choose another\): unlimited blogs, custom domains, scheduling, custom CSS, header\/footer HTML, 100,000 API requests\/hour\.\n/,
    );

    const set = await runCliCaptured(['account', 'create'], { ...dataEnv, FOLIO_DEFAULT_PLAN: 'creator' });
    expect(set.stdout).toMatch(
      / on the creator plan \(FOLIO_DEFAULT_PLAN\): 3 blogs, custom domains, scheduling, custom CSS, header\/footer HTML, 1,000 API requests\/hour\.\n/,
    );

    const chosen = await runCliCaptured(['account', 'create', '--plan', 'free', '--json'], { ...dataEnv, FOLIO_DEFAULT_PLAN: 'creator' });
    expect(JSON.parse(chosen.stdout)).toMatchObject({ plan: 'free' });

    const listed = await runCliCaptured(['account', 'list', '--json'], dataEnv);
    expect((JSON.parse(listed.stdout) as { plan: string }[]).map((a) => a.plan)).toEqual(expect.arrayContaining(['enterprise', 'creator', 'free']));
  });

  it('a bad value is one line naming the variable, exit 2, and no account', async () => {
    const before = await runCliCaptured(['account', 'list', '--json'], dataEnv);
    const run = await runCliCaptured(['account', 'create'], { ...dataEnv, FOLIO_DEFAULT_PLAN: 'gold' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('folio: FOLIO_DEFAULT_PLAN: expected one of free, starter, creator, scale, enterprise, got "gold"\n');
    const after = await runCliCaptured(['account', 'list', '--json'], dataEnv);
    expect(after.stdout).toBe(before.stdout);
  });

  it('the first start makes its account on it and prints the plan', async () => {
    const server = await spawnServer({ FOLIO_DEFAULT_PLAN: 'starter', FOLIO_LOG_LEVEL: 'warn', ...(await freshDatabaseEnv()) });
    try {
      const banner = server.lines.map((l) => l.text).join('\n');
      expect(banner).toMatch(/ Plan: +starter \(FOLIO_DEFAULT_PLAN\): 1 blog, custom domains, no scheduling/);
      expect(banner).toContain('folio account create');
      const list = await runCliCaptured(['account', 'list', '--json'], server.cliEnv);
      expect((JSON.parse(list.stdout) as { plan: string }[]).map((a) => a.plan)).toEqual(['starter']);
      // The key works, on that plan: a second blog is refused with the plan named.
      const make = (slug: string) =>
        fetch(`${server.baseUrl}/v1/blogs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ slug, name: slug }),
        });
      expect((await make('first')).status).toBe(201);
      const second = await make('second');
      expect(second.status).toBe(403);
    } finally {
      await server.cleanup();
    }
  });
});

describe('the plan table in docs/cli.md', () => {
  it('says what src/domain/plans.ts says', () => {
    const readme = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const yes = (plan: Plan, capability: Parameters<typeof planIncludes>[1]): string => (planIncludes(plan, capability) ? 'yes' : 'no');
    for (const plan of PLANS) {
      const { maxBlogs, requestsPerHour } = planLimits(plan);
      const row = `| \`${plan}\` | ${Number.isFinite(maxBlogs) ? maxBlogs : 'unlimited'} | ${yes(plan, 'domains')} | ${yes(plan, 'schedule')} | ${yes(plan, 'theme:basic')} | ${yes(plan, 'theme:html')} | ${requestsPerHour.toLocaleString('en-US')} |`;
      expect(readme).toContain(row);
    }
  });
});
