import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Chromium suite has its own config and command (npm run test:browser; .ci/run runs both).
    exclude: ['test/browser/**', 'node_modules/**'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
