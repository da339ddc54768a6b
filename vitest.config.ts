import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Chromium and Varnish suites have their own configs and commands (npm run test:browser,
    // npm run test:edge), since they need Debian packages; .ci/run installs them and runs all three.
    exclude: ['test/browser/**', 'test/cdn/**', 'node_modules/**'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share a worker's module cache instead of importing the app afresh each time:
    // that import was 50 of 190 s. Every file builds its own app, data dir and stores, and
    // nothing keeps state in modules between them (checked with --sequence.shuffle.files).
    isolate: false,
  },
});
