/**
 * No single request may block the event loop for more than 100 ms, for any input the API
 * accepts (hardening issue, item 1): every pathological input of bench/hostileInputs.ts is
 * written, published, edited, searched and previewed (POST /v1/preview, a preview link's page) through the real app while the event loop's delay is
 * measured (perf_hooks.monitorEventLoopDelay; the server runs in this process). The assertion
 * uses a generous bound because this VM is shared; `npm run bench -- --only hostile` reports the
 * figures against the 100 ms target. Every answer is a 2xx or a clear 400, and what was accepted
 * reads back unchanged.
 *
 * The worker threads that take the heavy work off the event loop are the compiled ones `npm
 * test` builds first; without them the work would run in place and this suite fails, as it
 * should.
 *
 * Beside them, the trickling-webhook case: one account's receivers that never finish answering,
 * with another account's delivery timed while they are stuck.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileInputs, MIB, type HostileInput } from '../../bench/hostileInputs.js';
import { buildAccount, buildBlog, buildPost, expectError, type BuiltBlog } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startReceiver } from '../support/webhookReceiver.js';
import { avifBomb, image } from '../support/images.js';

/** Generous for a loaded 2-core VM; the target (100 ms) is checked by the bench. */
const DELAY_BOUND_MS = 400;
const SMALL = 128 * 1024;
/**
 * The inputs run at the API's full 1 MB here; the bench runs all of them at that size. Not the
 * table of 500 columns: at 1 MB it renders to 5.7 MB of HTML and is refused, which took 9 of
 * this file's 53 s, and runs of & and < meet the same refusal at that size.
 */
const FULL_SIZE = new Set([
  'run of <',
  'run of `',
  'run of ~',
  'run of ](',
  '250,000 emphasis markers',
  'quotes nested line by line',
  'lists nested line by line',
  'Hangul mixed with Markdown',
  'run of &',
  'headings of one text',
]);

let t: TestApp;
let blog: BuiltBlog;

beforeAll(async () => {
  t = await startTestApp();
  blog = await buildBlog(t);
  expect(t.folio.heavy.available, 'compiled workers missing: run `npm test`, which builds dist/ first').toBe(true);
});
afterAll(async () => t.close());

/** Runs `work` and returns the longest the event loop was held meanwhile, in ms. */
async function worstDelay(work: () => Promise<void>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    await work();
    await t.folio.runner.idle();
  } finally {
    histogram.disable();
  }
  // The histogram records how late each 10 ms tick fired: the stall beyond the resolution.
  return histogram.max / 1e6;
}

let sequence = 0;

/**
 * `previews`: also the live preview and a preview link's page. They run the renderer create runs,
 * so the 128 KB pass checks them for every input; at 1 MB the bench (`--only hostile`) does, and
 * here they would double the longest file of npm test.
 */
async function writeAndRead(input: HostileInput, previews = true): Promise<void> {
  sequence += 1;
  const slug = `hostile-${sequence}`;
  let status = 0;
  const delays: Record<string, number> = {
    create: await worstDelay(async () => {
      const res = await blog.actor.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: input.name, slug, content: input.content, status: 'published' },
      });
      status = res.status;
      if (res.status !== 201) {
        // The one refusal an accepted size can meet: HTML that would be over 3 MB.
        expectError(res, 400, 'bad_request');
        expect(res.body.details[0].field).toBe('content');
        expect(res.body.message).toMatch(/3 MB/);
      }
    }),
    search: await worstDelay(async () => {
      const res = await blog.actor.request('GET', '/v1/search?q=hostile+post', { blogId: blog.id });
      expect(res.status).toBe(200);
    }),
  };
  if (previews) {
    // The editor's live preview renders what create rendered, and refuses what create refused.
    delays.preview = await worstDelay(async () => {
      const res = await blog.actor.request('POST', '/v1/preview', { blogId: blog.id, body: { content_md: input.content } });
      if (status === 201) expect(res.status).toBe(200);
      else expect(res.body.details[0].field).toBe('content_md');
    });
  }
  if (previews && status === 201) {
    // A preview link's page renders the whole post page on request.
    delays.previewPage = await worstDelay(async () => {
      const link = await blog.actor.request('POST', `/v1/posts/${slug}/preview-link`, { blogId: blog.id, body: {} });
      expect(link.status).toBe(201);
      // The page allows an address 60 loads a minute on the app's clock, which only tests move:
      // a minute passes between inputs, as it would for a person sharing previews.
      t.clock.advance(60_000);
      expect((await fetch(`${t.baseUrl}${new URL(link.body.url).pathname}`)).status).toBe(200);
    });
  }
  if (status === 201) {
    const stored = await blog.actor.request('GET', `/v1/posts/${slug}`, { blogId: blog.id });
    expect(stored.status).toBe(200);
    expect(stored.body.content_md === input.content, 'content reads back unchanged').toBe(true);
    const page = await fetch(`${t.baseUrl}/${slug}`, { headers: { host: `${blog.slug}.localhost:3000` } }).catch(() => null);
    expect(page === null || page.status < 500).toBe(true);
  }
  if (process.env.HOSTILE_REPORT) console.log(`DELAY ${input.name.padEnd(30)} ${JSON.stringify(delays)}`);
  for (const [step, ms] of Object.entries(delays)) expect(ms, `${input.name}: ${step} held the event loop`).toBeLessThan(DELAY_BOUND_MS);
}

describe('every pathological input at 128 KB: create as published, then search', () => {
  it.each(hostileInputs(SMALL).map((input) => [input.name, input] as const))('%s', async (_name, input) => {
    await writeAndRead(input);
  });
});

describe('the heaviest inputs at the full 1 MB', () => {
  const inputs = hostileInputs(MIB).filter((input) => FULL_SIZE.has(input.name));

  it('covers the inputs it names', () => {
    expect(inputs.map((i) => i.name).sort()).toEqual([...FULL_SIZE].sort());
    for (const input of inputs) expect(Buffer.byteLength(input.content)).toBeLessThanOrEqual(MIB);
  });

  // The previews of these run in the bench (writeAndRead).
  it.each(inputs.map((input) => [input.name, input] as const))(
    '%s: create and search',
    async (_name, input) => {
      await writeAndRead(input, false);
    },
    60_000,
  );

  it.each(inputs.filter((i) => ['run of <', 'run of `', 'quotes nested line by line'].includes(i.name)).map((input) => [input.name, input] as const))(
    '%s: edit a live post, unpublish and publish it again',
    async (_name, input) => {
      const slug = `edited-${input.name.length}-${sequence++}`;
      const created = await blog.actor.request('POST', '/v1/posts', {
        blogId: blog.id,
        body: { title: 'To be edited', slug, content: 'Short.', status: 'published' },
      });
      expect(created.status).toBe(201);
      const delays: Record<string, number> = {};
      let edited = 0;
      delays.edit = await worstDelay(async () => {
        edited = (await blog.actor.request('PUT', `/v1/posts/${slug}`, { blogId: blog.id, body: { content: input.content } })).status;
      });
      expect([200, 400]).toContain(edited);
      delays.unpublish = await worstDelay(async () => {
        expect((await blog.actor.request('POST', `/v1/posts/${slug}/unpublish`, { blogId: blog.id })).status).toBe(200);
      });
      delays.publish = await worstDelay(async () => {
        expect((await blog.actor.request('POST', `/v1/posts/${slug}/publish`, { blogId: blog.id })).status).toBe(200);
      });
      if (edited === 200) {
        // Its revision holds the megabyte; a short edit, then the list and the restore of it.
        t.clock.advance(10 * 60_000);
        expect((await blog.actor.request('PUT', `/v1/posts/${slug}`, { blogId: blog.id, body: { content: 'Short again.' } })).status).toBe(200);
        let big = '';
        delays.revisions = await worstDelay(async () => {
          const listed = await blog.actor.request('GET', `/v1/posts/${slug}/revisions`, { blogId: blog.id });
          expect(listed.status).toBe(200);
          big = listed.body.data[1].id;
          expect(listed.body.data[1].content_length).toBe(Buffer.byteLength(input.content));
        });
        delays.restore = await worstDelay(async () => {
          expect((await blog.actor.request('POST', `/v1/posts/${slug}/revisions/${big}/restore`, { blogId: blog.id })).status).toBe(200);
        });
      }
      for (const [step, ms] of Object.entries(delays)) expect(ms, `${input.name}: ${step}`).toBeLessThan(DELAY_BOUND_MS);
    },
  );
});

describe('the other write endpoints at their limits', () => {
  it('blog, theme, key and domain writes with hostile values at their maximum sizes', async () => {
    const owner = blog.actor;
    const ugly = (n: number) => '<&"\'*/`'.repeat(Math.ceil(n / 7)).slice(0, n);
    const steps: [string, () => Promise<number>][] = [
      [
        'create blog',
        async () => (await owner.request('POST', '/v1/blogs', { body: { slug: 'hostile-limits', name: ugly(200), description: ugly(1000) } })).status,
      ],
      [
        'theme change',
        async () =>
          (
            await owner.request('PUT', `/v1/blogs/${blog.id}`, {
              body: {
                name: ugly(200),
                description: ugly(1000),
                theme_config: { customCss: ugly(100_000), headerHtml: '<div>'.repeat(4000), footerHtml: ugly(20_000), adCode: ugly(20_000) },
              },
            })
          ).status,
      ],
      ['create key', async () => (await owner.request('POST', `/v1/blogs/${blog.id}/api-keys`, { body: { name: ugly(100) } })).status],
      [
        'register domain',
        async () =>
          (await owner.request('POST', `/v1/blogs/${blog.id}/domain`, { body: { hostname: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.example` } }))
            .status,
      ],
    ];
    for (const [step, run] of steps) {
      let status = 0;
      const ms = await worstDelay(async () => {
        status = await run();
      });
      expect(status, step).toBeLessThan(300);
      expect(ms, `${step} held the event loop`).toBeLessThan(DELAY_BOUND_MS);
    }
  });
});

describe('webhook receivers that trickle their answers, with another account beside them', () => {
  it("20 trickling receivers of one account never hold back another account's delivery, nor the event loop", async () => {
    // The server's own limits (10 s deadline, 4 of 16 slots per account).
    const app = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const trickler = await startReceiver('/trickle');
    // One byte every 2 s: far inside a socket idle timeout, so only a deadline over the whole
    // exchange ends these sends.
    trickler.trickleMs = 2_000;
    trickler.answer = () => 'trickle';
    const other = await startReceiver('/other');
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    try {
      const tenant = await buildAccount(app);
      for (const blog of [await buildBlog(app, { actor: tenant }), await buildBlog(app, { actor: tenant })]) {
        for (let i = 0; i < 10; i++) {
          const res = await blog.actor.request('POST', `/v1/blogs/${blog.id}/webhooks`, {
            body: { url: `${trickler.url}?n=${i}`, events: ['post.published'] },
          });
          expect(res.status, res.text).toBe(201);
        }
        await buildPost(blog, { status: 'published' });
      }
      await trickler.waitFor(4);
      // Measured from here: the sends are stuck and the other account works beside them.
      histogram.enable();
      const otherBlog = await buildBlog(app);
      const hook = await otherBlog.actor.request('POST', `/v1/blogs/${otherBlog.id}/webhooks`, { body: { url: other.url, events: ['post.published'] } });
      other.setSecret(hook.body.secret);
      const published = performance.now();
      await buildPost(otherBlog, { status: 'published' });
      const [got] = await other.waitFor(1, 8_000);
      console.log(`other account's delivery beside 20 trickling receivers: ${Math.round(got!.at - published)} ms after its publish was sent`);
      expect(got!.verified).toBe(true);
      // It arrived while the trickling account's sends were all still stuck.
      expect(trickler.abandoned).toBe(0);
    } finally {
      histogram.disable();
      await trickler.close();
      await other.close();
      await app.close();
    }
    expect(histogram.max / 1e6, 'the event loop was held').toBeLessThan(DELAY_BOUND_MS);
  });
});

describe('hostile images (issue 27 item 22)', () => {
  const upload = (key: string, blogId: string, bytes: Buffer, contentType: string) =>
    t.request('POST', '/v1/media', { key, blogId, raw: bytes, headers: { 'content-type': contentType } });

  it('ten tiny 7000 × 7000 AVIFs from one account are refused before decoding; another account’s 64 × 64 upload beside them succeeds', async () => {
    const attacker = await buildBlog(t);
    const other = await buildBlog(t);
    // One file sent ten times at once: none is stored yet, so each goes to the image pipeline.
    const bomb = await avifBomb(7000, 7000);
    expect(bomb.length).toBeLessThan(4096);
    const bombs = Array.from({ length: 10 }, () => bomb);
    const small = await image('png', 64, 64);
    let answers: { status: number; body: { error?: string; message?: string } }[] = [];
    let beside = { status: 0, text: '' };
    const ms = await worstDelay(async () => {
      const sent = bombs.map((bomb) => upload(attacker.actor.key, attacker.id, bomb, 'image/avif'));
      beside = await upload(other.actor.key, other.id, small, 'image/png');
      answers = await Promise.all(sent);
    });
    expect(beside.status, beside.text).toBe(201);
    for (const answer of answers) {
      expectError(answer as never, 400, 'bad_request');
      expect(answer.body.message).toMatch(/pixels/);
    }
    expect(t.folio.media.queueStats()).toEqual({ waiting: 0, running: 0 });
    if (process.env.HOSTILE_REPORT) console.log(`DELAY hostile images ${ms}`);
    expect(ms, 'the hostile images held the event loop').toBeLessThan(DELAY_BOUND_MS);
  }, 90_000);
});
