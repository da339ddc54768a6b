import { defineConfig } from 'vitest/config';
import { SHIP } from './vitest.ship.config.js';

/**
 * Files that bound how long a request may wait on a stalled part: they run last, after the busy
 * suite, two at a time, so a neighbour's CPU never reads as theirs (a paused s3rver, a locked
 * database; bounds of 400 and 500 ms). hostileInputs, which bounds the event loop's delay too,
 * runs in the suite: its worst delay is about 33 ms against its 400 ms bound, and last it left
 * one of the two slots idle for 20 s.
 */
const LOOP_BOUND = ['test/regressions/database-lock-503.test.ts', 'test/integration/storeHang.test.ts'];
/** Files that mostly wait (here on a restarted s3rver's circuit): they keep the others company. */
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
