/**
 * The beacon load of the analytics bench, in its own process. It stands for readers on other
 * machines, so it must cost this one as little as possible: requests are written as prepared
 * bytes on a few keep-alive sockets and answers are only counted, no HTTP client in between (a
 * Node http.request costs about what the server's answer does, and on two cores that share is
 * taken from the server being measured). Paced evenly in time, as readers' loads arrive.
 * Prints `ready` once connected, then the counts as one JSON line. Arguments: <base url> <blog host> <seconds> <hits per second>.
 */
import { connect, type Socket } from 'node:net';

const [url, host, secondsArg, rateArg] = process.argv.slice(2);
const { hostname, port } = new URL(url!);
const seconds = Number(secondsArg);
const rate = Number(rateArg);
const SOCKETS = 8;
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** One hit: a new reader each time (the worst case for the visitor set), from the post's page. */
const hit = (n: number): string =>
  `GET /_folio/view.gif?p=the-post HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${CHROME}\r\nReferer: http://${host}/the-post\r\n` +
  `X-Forwarded-For: 10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}\r\nConnection: keep-alive\r\n\r\n`;

let ok = 0;
let failed = 0;
const STATUS = /HTTP\/1\.1 (\d{3})/g;

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
    socket.setNoDelay(true);
    // Status lines are counted; a line split across two reads is caught by keeping a short tail.
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      let last = 0;
      for (const match of text.matchAll(STATUS)) {
        if (match[1] === '200') ok += 1;
        else failed += 1;
        last = match.index + match[0].length;
      }
      tail = text.slice(Math.max(last, text.length - 16));
    });
  });
}

const sockets = await Promise.all(Array.from({ length: SOCKETS }, open));
// The bench starts its measured window on this line, so a process's start-up is never in it.
process.stdout.write('ready\n');
const total = Math.round(rate * seconds);
const gapMs = 1000 / rate;
let sent = 0;
const start = performance.now();
await new Promise<void>((resolve) => {
  const tick = setInterval(() => {
    const due = Math.min(total, Math.floor((performance.now() - start) / gapMs) + 1);
    while (sent < due) {
      sockets[sent % SOCKETS]!.write(hit(sent));
      sent += 1;
    }
    if (sent === total) {
      clearInterval(tick);
      resolve();
    }
  }, 1);
});
// The last answers, for at most five seconds.
const until = performance.now() + 5_000;
while (ok + failed < total && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
for (const socket of sockets) socket.destroy();
process.stdout.write(`${JSON.stringify({ average: ok / seconds, ok, failed: failed + (total - ok - failed) })}\n`);
