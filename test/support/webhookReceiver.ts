/**
 * A webhook receiver on loopback that verifies every delivery with the `standardwebhooks`
 * package, as a receiver in the wild would. `answer` decides each response (status code,
 * 'hold' to never answer, or 'trickle' to send `200` headers and then one byte of the body
 * every `trickleMs`, never finishing: a socket idle timeout never fires on it).
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
  answer: (req: IncomingMessage, count: number) => number | 'hold' | 'trickle';
  /** The pause between the bytes of a trickled answer. */
  trickleMs: number;
  /** Trickled answers whose connection the sender has closed. */
  abandoned: number;
  /** Resolves once `n` deliveries (verified or not) have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  /** Resolves once the sender has closed `n` trickled answers. */
  waitForAbandoned(n: number, timeoutMs?: number): Promise<void>;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  let secret = '';
  const held: IncomingMessage[] = [];
  const tricklers = new Set<NodeJS.Timeout>();
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 204,
    trickleMs: 50,
    abandoned: 0,
    waitFor: async (n, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received.length} of ${n} deliveries`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return receiver.received;
    },
    waitForAbandoned: async (n, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.abandoned < n) {
        if (Date.now() > deadline) throw new Error(`the sender closed ${receiver.abandoned} of ${n} trickled answers`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    setSecret: (value) => {
      secret = value;
    },
    close: () => {
      for (const req of held) req.socket.destroy();
      for (const timer of tricklers) clearInterval(timer);
      server.closeAllConnections();
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
      if (answer === 'trickle') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000000' });
        const timer = setInterval(() => res.write('.'), receiver.trickleMs);
        tricklers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          tricklers.delete(timer);
          receiver.abandoned++;
        });
        return;
      }
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
  return receiver;
}
