import { defineConfig } from 'vitest/config';

// The shipping suite (npm run test:ship): checks of what we ship rather than of what the app
// does — the Docker image assembled from the Dockerfile's COPY lines and its build run,
// `redocly lint` of the OpenAPI document, and the schemas compiled in Debian's Python
// jsonschema. Each is mostly a second build or another tool's start-up, or needs a Debian
// package, so they run here, beside the browser and edge suites in .ci/run: `npm test` keeps
// its budget and needs nothing but Node.
export const SHIP = ['test/integration/dockerImage.test.ts', 'test/integration/openApiLint.test.ts', 'test/integration/schemasInPython.test.ts'];

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
