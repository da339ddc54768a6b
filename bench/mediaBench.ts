/**
 * `npm run bench -- --only media`: uploading a 4000 × 3000 camera-sized JPEG to the real server
 * (its own process) through POST /v1/media, which decodes it and writes the full-size copy,
 * nine variants and the og crop. Figures: upload time (answer received), the worst /healthz
 * latency meanwhile (the event loop must stay free: libvips works on its own threads), and the
 * bytes a reader downloads instead of the original.
 *
 * Anchor, measured in the same run: sharp in this process making the one thing any image
 * service makes, a 1600 px JPEG of the same photo. The ratio says what the nine other encodings
 * (AVIF dominates) and the HTTP path cost on top.
 */
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { probe } from './harness/healthProbe.js';
import { visit } from './harness/visit.js';
import { createBenchAccount, startBenchServer } from './serverProcess.js';
import type { BenchRow } from './table.js';
import { percentile } from './harness/stats.js';

const UPLOADS = 5;

/** A photo-like 4000 × 3000 JPEG: sky gradient, sun, hills, and sensor-like noise (never the same bytes twice). */
async function cameraJpeg(seed: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000"><defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${(seed * 47) % 360},60%,55%)"/><stop offset="1" stop-color="#fdf6e3"/></linearGradient></defs><rect width="4000" height="3000" fill="url(#s)"/><circle cx="3000" cy="700" r="300" fill="#f5c542"/><ellipse cx="1500" cy="3200" rx="2800" ry="1200" fill="#3d7a3a"/><ellipse cx="3300" cy="3300" rx="1800" ry="900" fill="#2f5f2d"/></svg>`;
  const noise = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } })
    .png()
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: noise, blend: 'overlay' }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** The server's event-loop delay maximum since the last call, in ms. */
async function loopMax(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
  if (!match) throw new Error('GET /metrics has no nodejs_eventloop_lag_max_seconds');
  return Number(match[1]) * 1000;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;

export async function runMediaBench(): Promise<BenchRow[]> {
  const area = 'media (4000 × 3000 JPEG)';
  const rows: BenchRow[] = [];
  const photos = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => cameraJpeg(i)));

  // Anchor: one 1600 px JPEG of each photo, in process.
  const anchor: number[] = [];
  for (const photo of photos) {
    const started = performance.now();
    await sharp(photo).resize({ width: 1600 }).jpeg({ quality: 80, mozjpeg: true }).toBuffer();
    anchor.push(performance.now() - started);
  }

  const server = await startBenchServer();
  try {
    const key = createBenchAccount(server.dataDir);
    const auth = { authorization: `Bearer ${key}` };
    const blog = (await (
      await fetch(`${server.baseUrl}/v1/blogs`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'photos', name: 'Photos' }),
      })
    ).json()) as { id: string };

    const idleProbe = probe(server.baseUrl);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = await idleProbe.stop();

    // The longest event-loop stall of the server process while it handles the uploads, from its
    // own monitor (prom-client's nodejs_eventloop_lag_max_seconds; reading /metrics resets it).
    // /healthz latency also counts waiting for a CPU, which libvips' threads share on 2 cores.
    await loopMax(server.baseUrl);
    const times: number[] = [];
    let last: { bytes: number; stored_bytes: number; variants: { width: number; content_type: string; url: string }[]; url: string } | null = null;
    const probing = probe(server.baseUrl);
    for (const photo of photos) {
      const started = performance.now();
      const res = await fetch(`${server.baseUrl}/v1/media`, {
        method: 'POST',
        headers: { ...auth, 'x-blog-id': blog.id, 'content-type': 'image/jpeg' },
        body: new Uint8Array(photo),
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      times.push(performance.now() - started);
      last = (await res.json()) as typeof last;
    }
    const worst = await probing.stop();
    const stall = await loopMax(server.baseUrl);

    const sizeOf = async (url: string): Promise<number> => {
      const res = await visit(server.baseUrl, 'photos.localhost:3000', new URL(url).pathname);
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      return res.body.length;
    };
    const variant = (width: number, type: string) => last!.variants.find((v) => v.width === width && v.content_type === type)!;
    const desktop = await sizeOf(variant(960, 'image/avif').url);
    const phone = await sizeOf(variant(480, 'image/avif').url);
    const fallback = await sizeOf(variant(1600, 'image/jpeg').url);
    const original = last!.bytes;

    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    rows.push({
      area,
      measure: `upload → 201 (full size, 9 variants, og crop), p50 / max of ${UPLOADS}`,
      value: `${percentile(times, 0.5).toFixed(0)} / ${Math.max(...times).toFixed(0)} ms`,
      target: `load ${load}`,
    });
    rows.push({
      area,
      measure: 'anchor: sharp in process, one 1600 px JPEG, p50',
      value: `${percentile(anchor, 0.5).toFixed(0)} ms`,
      target: `upload / anchor ${(percentile(times, 0.5) / percentile(anchor, 0.5)).toFixed(1)}x`,
    });
    rows.push({
      area,
      measure: 'worst /healthz latency while uploading / idle anchor',
      value: `${worst.toFixed(0)} / ${idle.toFixed(0)} ms`,
      target: '≤ 100 ms',
    });
    rows.push({
      area,
      measure: 'longest event-loop stall of the server while uploading (its own monitor, 10 ms resolution)',
      value: `${stall.toFixed(0)} ms`,
      target: '≤ 100 ms',
    });
    rows.push({
      area,
      measure: 'bytes: upload → desktop reader (960 px AVIF)',
      value: `${mb(original)} → ${kb(desktop)}`,
      target: `${((1 - desktop / original) * 100).toFixed(1)}% saved`,
    });
    rows.push({
      area,
      measure: 'bytes: phone reader (480 px AVIF); no-AVIF browser (1600 px JPEG)',
      value: `${kb(phone)}; ${kb(fallback)}`,
      target: `${((1 - phone / original) * 100).toFixed(1)}%; ${((1 - fallback / original) * 100).toFixed(1)}% saved`,
    });
    rows.push({ area, measure: 'stored per image (all objects)', value: mb(last!.stored_bytes) });
    return rows;
  } finally {
    await server.stop();
  }
}
