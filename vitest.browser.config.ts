import { defineConfig } from 'vitest/config';

// The headless Chromium suite (npm run test:browser); needs /usr/bin/chromium.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
