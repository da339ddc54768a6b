import { defineConfig } from 'vitest/config';
import { SHIP } from './vitest.ship.config.js';

/**
 * Files that bound how long the event loop or a request may be held: they run last, after the
 * busy suite, so a neighbour's CPU never reads as ours. Two at a time: hostileInputs keeps its
 * worker threads busy, and the other two spend their time waiting on a paused s3rver and on a
 * locked database, which leaves hostileInputs' main thread its core (their bounds, 400 and
 * 500 ms, are far above what a waiting neighbour costs).
 */
const LOOP_BOUND = ['test/integration/hostileInputs.test.ts', 'test/regressions/database-lock-503.test.ts', 'test/integration/storeHang.test.ts'];
/**
 * Files that mostly wait (here on a restarted s3rver's circuit): they keep the loop-bound files
 * company in the second slot, which hostileInputs' length would otherwise leave idle.
 */
const WAITING = ['test/integration/storeOutage.test.ts'];

export default defineConfig({
  test: {
    // The Chromium, Varnish and PostgreSQL suites have their own configs and commands (npm run
    // test:browser, test:edge, test:postgres), since they need Debian packages; the shipping
    // checks (npm run test:ship) are a second build and a linter's start-up. .ci/run runs all five.
    exclude: ['test/browser/**', 'test/cdn/**', 'test/postgres/**', 'node_modules/**', ...SHIP],
    globalSetup: ['test/support/globalSetup.ts'],
    // Limits for a hung test, not speed checks (those are benches): at load average 15 several
    // files that take 6-8 s on a quiet machine ran past 20 s, so the limits leave 3x room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share a worker's module cache instead of importing the app afresh each time:
    // that import was 50 of 190 s. Every file builds its own app, data dir and stores, and
    // nothing keeps state in modules between them (checked with --sequence.shuffle.files).
    isolate: false,
    projects: [
      // Two files at a time: most of a file's time is spent waiting on servers it started.
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...LOOP_BOUND, ...WAITING], maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'last', include: [...LOOP_BOUND, ...WAITING], maxWorkers: 2, sequence: { groupOrder: 1 } } },
    ],
  },
});
