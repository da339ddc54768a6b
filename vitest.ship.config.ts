import { defineConfig } from 'vitest/config';

// The shipping suite (npm run test:ship): checks of what we ship rather than of what the app
// does — the Docker image assembled from the Dockerfile's COPY lines and its build run, and
// `redocly lint` of the OpenAPI document. Each is mostly a second build or a CLI's start-up, so
// they run here, beside the browser and edge suites in .ci/run, to keep `npm test` in its budget.
export const SHIP = ['test/integration/dockerImage.test.ts', 'test/integration/openApiLint.test.ts'];

export default defineConfig({
  test: {
    include: SHIP,
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
