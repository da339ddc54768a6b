/**
 * Issue #32: the shipped balancer (deploy/several-nodes/Caddyfile) in Debian's caddy, in front of
 * two real Folio servers. Every node gets requests, one blog's always the same node, and a node
 * stopped with SIGTERM — drained, as an upgrade does it — costs no request a failure: Caddy
 * finds it gone and tries the other node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBalancer, type CaddyHandle } from '../support/caddy.js';
import { spawnServer, type SpawnedServer } from '../support/spawnedServer.js';

let nodes: SpawnedServer[] = [];
let balancer: CaddyHandle;

beforeAll(async () => {
  nodes = await Promise.all([spawnServer(), spawnServer()]);
  balancer = await startBalancer(nodes.map((node) => `127.0.0.1:${node.port}`));
});

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(nodes.map((node) => node.cleanup()));
});

/** The node that answered: each spawned server has its own first account, so its key says which. */
async function whoAnswers(): Promise<number[]> {
  const answers = await Promise.all(
    nodes.map((node) =>
      fetch(`http://127.0.0.1:${balancer.httpPort}/v1/account`, { headers: { authorization: `Bearer ${node.apiKey}` } }).then((res) => res.status),
    ),
  );
  return answers;
}

describe('deploy/several-nodes/Caddyfile', () => {
  it('spreads requests over every node', async () => {
    // A key is known to one node only (each has its own database here): 200 from that node, 401 from the other.
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const statuses = await whoAnswers();
      seen.add(statuses.join(','));
    }
    // Both nodes answered both keys at some point: round robin, not one node taking everything.
    const byNode = [...seen].map((s) => s.split(',').map(Number));
    expect(
      byNode.some((statuses) => statuses[0] === 200),
      balancer.output(),
    ).toBe(true);
    expect(
      byNode.some((statuses) => statuses[1] === 200),
      balancer.output(),
    ).toBe(true);
  });

  it("sends one blog's requests to one node (X-Blog-Id), and different blogs to different nodes", async () => {
    const nodeOf = async (blogId: string): Promise<number> => {
      const statuses = await Promise.all(
        nodes.map((node) =>
          fetch(`http://127.0.0.1:${balancer.httpPort}/v1/account`, { headers: { authorization: `Bearer ${node.apiKey}`, 'x-blog-id': blogId } }).then(
            (res) => res.status,
          ),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      return statuses.indexOf(200);
    };
    const chosen = new Map<string, number>();
    for (let blog = 0; blog < 24; blog++) chosen.set(`blog-${blog}`, await nodeOf(`blog-${blog}`));
    // Asked again, every blog lands where it did.
    for (const [blogId, node] of chosen) expect(await nodeOf(blogId)).toBe(node);
    expect(new Set(chosen.values()).size, balancer.output()).toBe(2);
  });

  it('loses no request when a node is drained with SIGTERM', async () => {
    const [first, second] = nodes as [SpawnedServer, SpawnedServer];
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      // Blogs that were the drained node's go to the other one.
      const res = await fetch(`http://127.0.0.1:${balancer.httpPort}/v1/account`, {
        headers: { authorization: `Bearer ${second.apiKey}`, 'x-blog-id': `blog-${i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses, balancer.output()).toEqual(Array(20).fill(200));
  });
});
