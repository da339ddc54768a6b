/**
 * The hostile-image case of `npm run bench -- --only hostile` (issue 27 item 22): one account
 * sends ten kilobyte-sized 7000 × 7000 AVIFs and five slow but valid 3000 × 2000 AVIFs at once;
 * beside them another account uploads a 64 × 64 PNG. Reported: that upload's status and time,
 * the flood's answers, and the worst /healthz latency meanwhile (the event loop).
 */
import sharp from 'sharp';
import { createBenchAccount, type BenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';
import { probe } from './harness/healthProbe.js';

const flat = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background }, limitInputPixels: false })
    .avif({ effort: 0 })
    .toBuffer();

async function blogOf(server: BenchServer, slug: string): Promise<{ key: string; id: string }> {
  const key = createBenchAccount(server.dataDir);
  const res = await fetch(`${server.baseUrl}/v1/blogs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ slug, name: slug }),
  });
  return { key, id: ((await res.json()) as { id: string }).id };
}

async function upload(server: BenchServer, blog: { key: string; id: string }, bytes: Buffer, contentType: string): Promise<number> {
  const res = await fetch(`${server.baseUrl}/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${blog.key}`, 'x-blog-id': blog.id, 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
  await res.arrayBuffer();
  return res.status;
}

export async function hostileImageRows(server: BenchServer, targetMs: number): Promise<BenchRow[]> {
  const flooder = await blogOf(server, 'image-flood');
  const other = await blogOf(server, 'image-beside');
  const bomb = await flat(7000, 7000, '#000');
  const slow = await Promise.all(['#100', '#200', '#300', '#400', '#500'].map((colour) => flat(3000, 2000, colour)));
  const small = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2b4c7e' } })
    .png()
    .toBuffer();

  const probing = probe(server.baseUrl);
  const started = performance.now();
  const flood = [
    ...Array.from({ length: 10 }, () => upload(server, flooder, bomb, 'image/avif')),
    ...slow.map((bytes) => upload(server, flooder, bytes, 'image/avif')),
  ];
  const besideStarted = performance.now();
  const beside = await upload(server, other, small, 'image/png');
  const besideMs = performance.now() - besideStarted;
  const statuses = await Promise.all(flood);
  const floodMs = performance.now() - started;
  const worst = await probing.stop();

  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return [
    { area: 'hostile', measure: `image flood: another account's 64 × 64 upload beside it (${beside}), ms`, value: besideMs.toFixed(0) },
    {
      area: 'hostile',
      measure: `image flood: 10 AVIF bombs (${bomb.length} B) + 5 slow AVIFs, answers`,
      value: Object.entries(counts)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', '),
    },
    { area: 'hostile', measure: 'image flood: all answered, ms', value: floodMs.toFixed(0) },
    { area: 'hostile', measure: 'image flood: worst /healthz ms', value: worst.toFixed(0), target: `≤ ${targetMs}` },
  ];
}
