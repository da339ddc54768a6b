/**
 * Two webhook dispatchers ("nodes", as two Folio processes run them, #32) on one database, each
 * with a client of its own, sending to one loopback receiver: the cases that
 * test/integration/webhookClaims.test.ts runs on SQLite and test/postgres/webhookClaims.test.ts
 * on PostgreSQL.
 */
import type { IncomingMessage } from 'node:http';
import { expect, it, onTestFinished } from 'vitest';
import type { SqlClient } from '../../src/db/sql/sqlClient.js';
import { WebhooksRepo } from '../../src/db/webhooksRepo.js';
import { claimLeaseMs, WebhookDispatcher, type DeliveryLimits } from '../../src/webhooks/dispatcher.js';
import { captureLog, type CapturedLog } from './capturedLog.js';
import { FakeClock } from './fakeClock.js';
import { startReceiver, type Receiver } from './webhookReceiver.js';

/** Two clients of one migrated, empty database; the caller closes them when the test finishes. */
export type OpenTwoClients = () => Promise<[SqlClient, SqlClient]>;

const T0 = '2026-03-24T10:00:00.000Z';
const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

interface Node {
  dispatcher: WebhookDispatcher;
  log: CapturedLog;
}

function startNode(sql: SqlClient, clock: FakeClock, limits: Partial<DeliveryLimits> = {}): Node {
  const log = captureLog();
  const dispatcher = new WebhookDispatcher({
    sql,
    repo: new WebhooksRepo(sql),
    clock,
    logger: log.logger,
    lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    allowPrivate: true,
    limits,
  });
  onTestFinished(() => dispatcher.close());
  return { dispatcher, log };
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  started.setSecret(SECRET);
  onTestFinished(() => started.close());
  return started;
}

/**
 * Webhooks w0… of one blog, each with `each` deliveries made one millisecond apart, taking turns
 * between the webhooks; a delivery's body names its webhook and its place (`n`) among them.
 */
async function seed(sql: SqlClient, url: string, webhooks: number, each: number): Promise<void> {
  await sql.run("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ('a1', 'a@example.com', 'creator', ?, ?)", [T0, T0]);
  await sql.run("INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('b1', 'a1', 'one', 'One', ?, ?)", [T0, T0]);
  const repo = new WebhooksRepo(sql);
  for (let w = 0; w < webhooks; w++) {
    await repo.insert({ id: `w${w}`, blogId: 'b1', url, events: ['post.published'], secret: SECRET, createdAt: T0 });
  }
  for (let n = 0; n < each; n++) {
    for (let w = 0; w < webhooks; w++) {
      const at = new Date(Date.parse(T0) + n * webhooks + w).toISOString();
      await sql.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, 'post.published', ?, 'pending', 0, ?, ?)`,
        [`msg_w${w}_${n}`, `w${w}`, JSON.stringify({ type: 'post.published', webhook: `w${w}`, n }), at, at],
      );
    }
  }
}

/** Runs both nodes until neither has a send running and nothing is due any more. */
async function drain(sql: SqlClient, nodes: Node[], clock: FakeClock): Promise<void> {
  for (let round = 0; round < 50; round++) {
    await Promise.all(nodes.map((node) => node.dispatcher.idle()));
    const due = await new WebhooksRepo(sql).due(clock.now().toISOString(), { skipWebhooks: [], skipAccounts: [] }, 1);
    if (due.length === 0) return;
    for (const node of nodes) node.dispatcher.deliverDue();
  }
  throw new Error('deliveries were still due after 50 rounds');
}

async function deliveryRows(sql: SqlClient) {
  return sql.all<{ id: string; status: string; attempts: number; claimed_until: string | null }>(
    'SELECT id, status, attempts, claimed_until FROM webhook_deliveries ORDER BY id',
  );
}

/**
 * Answers a request the receiver holds ('hold'): the helper keeps no response for it, so the
 * answer goes on the socket as it is.
 */
function answerHeld(req: IncomingMessage, status: number): void {
  req.socket.end(`HTTP/1.1 ${status} Answered\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

export function webhookNodeCases(open: OpenTwoClients): void {
  it('sends each delivery exactly once, and each webhook its deliveries in order, with two nodes reading the same due rows', async () => {
    const [one, two] = await open();
    const got = await receiver();
    const webhooks = 8;
    const each = 12;
    await seed(one, got.url, webhooks, each);
    const clock = new FakeClock(T0);
    clock.advance(60_000);
    const nodes = [startNode(one, clock), startNode(two, clock)];
    for (const node of nodes) node.dispatcher.deliverDue();
    await drain(one, nodes, clock);
    const ids = got.received.map((r) => r.id);
    expect(ids).toHaveLength(webhooks * each);
    expect(new Set(ids).size).toBe(webhooks * each);
    expect(got.received.every((r) => r.verified)).toBe(true);
    for (let w = 0; w < webhooks; w++) {
      const order = got.received.filter((r) => r.body.webhook === `w${w}`).map((r) => r.body.n);
      expect(order).toEqual([...Array(each).keys()]);
    }
    const rows = await deliveryRows(two);
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1 && row.claimed_until === null)).toBe(true);
    expect(await two.get('SELECT COUNT(*) AS n FROM webhook_attempts WHERE attempt = 1 AND response_code = 204')).toEqual({ n: webhooks * each });
    expect([...nodes[0]!.log.lines, ...nodes[1]!.log.lines]).toEqual([]);
  });

  it("leaves a webhook alone on every node while one node's send of it is in flight", async () => {
    const [one, two] = await open();
    const got = await receiver();
    const held: IncomingMessage[] = [];
    got.answer = (req, n) => {
      if (n > 1) return 204;
      held.push(req);
      return 'hold';
    };
    await seed(one, got.url, 1, 2);
    const clock = new FakeClock(T0);
    clock.advance(60_000);
    const a = startNode(one, clock, { timeoutMs: 600_000 });
    const b = startNode(two, clock);
    a.dispatcher.deliverDue();
    await got.waitFor(1);
    // The held delivery is A's, and the next one waits behind it, whichever node reads it.
    b.dispatcher.deliverDue();
    await b.dispatcher.idle();
    expect(got.received.map((r) => r.body.n)).toEqual([0]);
    answerHeld(held[0]!, 204);
    await a.dispatcher.idle();
    b.dispatcher.deliverDue();
    await drain(one, [a, b], clock);
    expect(got.received.map((r) => r.body.n)).toEqual([0, 1]);
    expect((await deliveryRows(one)).map((row) => [row.id, row.status, row.attempts])).toEqual([
      ['msg_w0_0', 'delivered', 1],
      ['msg_w0_1', 'delivered', 1],
    ]);
  });

  it("sends again, from the other node, a delivery whose node died mid-send once the claim's lease has passed", async () => {
    const [one, two] = await open();
    const got = await receiver();
    const held: IncomingMessage[] = [];
    got.answer = (req, n) => {
      if (n > 1) return 204;
      held.push(req);
      return 'hold';
    };
    await seed(one, got.url, 1, 1);
    const clock = new FakeClock(T0);
    // The "dead" node: its send never ends within the test (its deadline is 10 minutes away).
    const deadLimits = { timeoutMs: 600_000 };
    const dead = startNode(one, clock, deadLimits);
    const other = startNode(two, clock);
    dead.dispatcher.deliverDue();
    await got.waitFor(1);
    clock.advance(claimLeaseMs(deadLimits) - 1);
    other.dispatcher.deliverDue();
    await other.dispatcher.idle();
    expect(got.received).toHaveLength(1);
    clock.advance(1);
    other.dispatcher.deliverDue();
    const [first, second] = await got.waitFor(2);
    await other.dispatcher.idle();
    expect(second!.id).toBe(first!.id);
    expect(second!.verified).toBe(true);
    // The dead node wakes up and its send ends: the delivery is no longer its to record.
    answerHeld(held[0]!, 500);
    await dead.dispatcher.idle();
    expect(dead.log.lines.join('\n')).toContain('outlived its claim');
    expect(await deliveryRows(one)).toEqual([{ id: 'msg_w0_0', status: 'delivered', attempts: 1, claimed_until: null }]);
    expect(await new WebhooksRepo(one).attempts('w0', 10)).toEqual([expect.objectContaining({ attempt: 1, responseCode: 204, deliveryStatus: 'delivered' })]);
  });

  it('hands a send cut off by shutdown back at once: the other node sends it without waiting for the lease', async () => {
    const [one, two] = await open();
    const got = await receiver();
    got.answer = (_req, n) => (n === 1 ? 'hold' : 204);
    await seed(one, got.url, 1, 1);
    const clock = new FakeClock(T0);
    const stopping = startNode(one, clock, { timeoutMs: 600_000, closeGraceMs: 10 });
    const other = startNode(two, clock);
    stopping.dispatcher.deliverDue();
    await got.waitFor(1);
    await stopping.dispatcher.close();
    expect(await deliveryRows(one)).toEqual([{ id: 'msg_w0_0', status: 'pending', attempts: 0, claimed_until: null }]);
    other.dispatcher.deliverDue();
    await got.waitFor(2);
    await other.dispatcher.idle();
    expect((await deliveryRows(two))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });
}
