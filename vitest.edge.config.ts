import { defineConfig } from 'vitest/config';

// The edge suite (npm run test:edge): real varnishd, nginx and caddy (Debian's packages, which
// .ci/run installs) with the shipped deploy/ configurations in front of s3rver and Folio, and
// /usr/bin/chromium reading pages through them (reader analytics' acceptance).
export default defineConfig({
  test: {
    include: ['test/cdn/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
