import type { TestProject } from 'vitest/node';
import { startS3rver } from '../../bench/harness/s3rver.js';
import { preferMemoryTmpdir } from './memoryTmpdir.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the run's s3rver; tests make their own bucket with createTestBucket. */
    s3Endpoint: string;
    /**
     * `postgres://user@host:port` of the run's PostgreSQL cluster, in the PostgreSQL pass only
     * (vitest.postgres.config.ts): every test app then gets a database of its own there.
     */
    postgresBase?: string;
  }
}

type Teardown = () => Promise<void>;

/**
 * The real services the suite needs, started once per run. Each one provides what tests
 * `inject` and returns how to stop it; to add a service, append a starter here and declare its
 * keys in ProvidedContext above.
 */
const services: ReadonlyArray<(project: TestProject) => Promise<Teardown>> = [
  async (project) => {
    const s3 = await startS3rver();
    project.provide('s3Endpoint', s3.endpoint);
    return s3.stop;
  },
];

export default async function setup(project: TestProject): Promise<Teardown> {
  // Before anything makes a directory: the test workers, forked after this, inherit it.
  preferMemoryTmpdir();
  const started: Teardown[] = [];
  // Stop in reverse start order, and stop every service even when one of them fails to stop.
  const teardown = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const stop of [...started].reverse()) {
      try {
        await stop();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'stopping test services failed');
  };
  try {
    for (const start of services) started.push(await start(project));
  } catch (error) {
    // A later service failing to start must not leave the earlier ones running.
    await teardown().catch(() => undefined);
    throw error;
  }
  return teardown;
}
