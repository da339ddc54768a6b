/**
 * A webhook receiver on loopback that verifies every delivery with the `standardwebhooks`
 * package, as a receiver in the wild would. `answer` decides each response (status code, or
 * 'hold' to never answer).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  body: any;
  verified: boolean;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  answer: (req: IncomingMessage, count: number) => number | 'hold';
  /** Resolves once `n` deliveries (verified or not) have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  let secret = '';
  const held: IncomingMessage[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 204,
    waitFor: async (n, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received.length} of ${n} deliveries`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return receiver.received;
    },
    setSecret: (value) => {
      secret = value;
    },
    close: () => {
      for (const req of held) req.socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(secret).verify(text, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const body = JSON.parse(text);
      receiver.received.push({ id: String(req.headers['webhook-id']), type: body.type, body, verified, at: performance.now() });
      const answer = receiver.answer(req, receiver.received.length);
      if (answer === 'hold') {
        held.push(req);
        return;
      }
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
  return receiver;
}
