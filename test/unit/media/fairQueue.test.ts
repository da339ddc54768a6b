import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../src/media/fairQueue.js';
import { ServiceUnavailableError } from '../../../src/domain/errors.js';

/** A job the test finishes by hand, recording when it started. */
function gate(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('FairQueue', () => {
  it('takes waiting work round-robin between tenants, not first come first served', async () => {
    const queue = new FairQueue({ concurrency: 1, perTenantWaiting: 4, totalWaiting: 32 });
    const started: string[] = [];
    const jobs = ['a1', 'a2', 'a3', 'b1', 'a4', 'c1', 'b2'].map((name) => ({ name, ...gate(started, name) }));
    const results = jobs.map((job) => queue.run(job.name[0]!, job.work));
    await turn();
    expect(started).toEqual(['a1']);
    expect(queue.stats()).toEqual({ waiting: 6, running: 1 });
    for (let i = 0; i < jobs.length; i++) {
      jobs.find((job) => job.name === started[i])!.finish();
      await turn();
    }
    // b and c were never served: each goes before a's second; then in turn.
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(await Promise.all(results)).toEqual(jobs.map((job) => job.name));
    expect(queue.stats()).toEqual({ waiting: 0, running: 0 });
  });

  it('refuses only the tenant with too much waiting; another tenant still gets in', async () => {
    const queue = new FairQueue({ concurrency: 1, perTenantWaiting: 2, totalWaiting: 32 });
    const started: string[] = [];
    const jobs = ['a1', 'a2', 'a3'].map((name) => gate(started, name));
    const accepted = jobs.map((job, i) => queue.run('a', job.work).catch((err) => `${i}: ${err}`));
    await expect(queue.run('a', async () => 'a4')).rejects.toBeInstanceOf(ServiceUnavailableError);
    const other = queue.run('b', async () => 'b1');
    for (const job of jobs) {
      job.finish();
      await turn();
    }
    expect(await other).toBe('b1');
    expect(await Promise.all(accepted)).toEqual(['a1', 'a2', 'a3']);
  });

  it('a failing job frees its slot for the next', async () => {
    const queue = new FairQueue({ concurrency: 1, perTenantWaiting: 2, totalWaiting: 32 });
    const failing = queue.run('a', async () => {
      throw new Error('corrupt');
    });
    const next = queue.run('b', async () => 'ran');
    await expect(failing).rejects.toThrow('corrupt');
    expect(await next).toBe('ran');
  });
});
