import { describe, expect, it } from 'vitest';
import { spawnServer } from '../support/spawnedServer.js';
import { freshDatabaseEnv } from '../support/freshDatabase.js';

/**
 * The first start of the built server (dist/server/main.js, `npm run build`) prints a one-time
 * sign-in link beside the bootstrap key; opening it signs the browser in to the dashboard.
 */
describe('the first start', () => {
  it('prints a sign-in link that works once and opens the dashboard', async () => {
    const server = await spawnServer({ FOLIO_LOG_LEVEL: 'warn', ...(await freshDatabaseEnv()) });
    try {
      const banner = server.lines.map((l) => l.text).join('\n');
      const link = / Sign in: (\S+)/.exec(banner)?.[1];
      expect(link, banner).toMatch(new RegExp(`^${server.baseUrl}/dashboard/sign-in/[A-Za-z0-9_-]{43}$`));
      const opened = await fetch(link!, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      const cookie = opened.headers.getSetCookie()[0]!.split(';')[0]!;
      const account = await fetch(`${server.baseUrl}/dashboard/account`, { headers: { cookie } });
      expect(account.status).toBe(200);
      expect(await account.text()).toContain('data-page="account"');
      expect((await fetch(link!, { redirect: 'manual' })).status).toBe(410);
    } finally {
      await server.cleanup();
    }
  });
});
