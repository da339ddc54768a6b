/**
 * The MCP tools cover what an author's agent needs (issue 27 item 15), driven by the official
 * SDK client over both transports against a real Folio: an agent holding only a fresh account
 * key makes a blog and runs it (posts, images, domain, webhooks, keys, settings); every input
 * field is described and every schema compiles as Draft 2020-12 (and in Python's `jsonschema`:
 * schemasInPython.test.ts, in the shipping suite); tool errors keep the API's `details` and
 * `required_plan` and name tool arguments, not REST headers.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patternsIn } from '../support/schemaPatterns.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

let t: TestApp;
beforeAll(async () => {
  expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
  t = await startTestApp({ env: { FOLIO_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => t.close());

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: { type: string; text?: string }[];
}

const transports: Record<string, (key: string) => Transport> = {
  stdio: (key) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', FOLIO_API_URL: t.baseUrl, FOLIO_API_KEY: key },
      stderr: 'pipe',
    }),
  'streamable HTTP': (key) => new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
};

async function connect(kind: string, key: string) {
  const client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(transports[kind]!(key));
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  /** The result of a call that must succeed. */
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const answer = await call(name, args);
    if (answer.isError) throw new Error(`${name}: ${answer.content[0]?.text}`);
    return answer.structuredContent ?? {};
  };
  return { client, call, ok };
}

/** Every object property in a schema, with its path, nested objects included. */
function propertiesOf(schema: any, path = ''): [string, any][] {
  const out: [string, any][] = [];
  for (const [name, value] of Object.entries<any>(schema?.properties ?? {})) {
    out.push([`${path}${name}`, value]);
    out.push(...propertiesOf(value, `${path}${name}.`));
  }
  return out;
}

describe('tool schemas', () => {
  it("describe every input field, and the OpenAPI document's patterns use no \\p{…} (Python's re has none)", async () => {
    const { client } = await connect('streamable HTTP', t.key);
    try {
      const { tools } = await client.listTools();
      const undescribed = tools.flatMap((tool) =>
        propertiesOf(tool.inputSchema)
          .filter(([, schema]) => typeof schema.description !== 'string' || schema.description.length < 8)
          .map(([path]) => `${tool.name}.${path}`),
      );
      expect(undescribed).toEqual([]);
      expect(tools.every((tool) => tool.description && tool.description.length > 20)).toBe(true);

      // Each compiles as Draft 2020-12, and the slug pattern takes what the API takes.
      const ajv = new Ajv2020({ strict: false });
      const validators = tools.map((tool) => ajv.compile(tool.inputSchema));
      const createPost = validators[tools.findIndex((tool) => tool.name === 'create_post')]!;
      expect(['한국어-글', 'café-2024', 'Bad Slug', 'double--hyphen'].map((slug) => createPost({ title: 'T', content: 'x', slug }))).toEqual([
        true,
        true,
        false,
        false,
      ]);

      // The document's patterns: none with \p{…}, which Python's re cannot compile (schemasInPython.test.ts compiles them there).
      const doc = await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json();
      const patterns = patternsIn(doc);
      expect(patterns.length).toBeGreaterThan(3);
      expect(patterns.filter((pattern) => /\\[pP]\{/.test(pattern))).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe.each(Object.keys(transports))('MCP tools over %s', (kind) => {
  it('let an agent with a fresh account key make a blog and run it: posts, images, domain, webhooks, keys, settings', async () => {
    const account = await t.createAccount('scale');
    const { client, call, ok } = await connect(kind, account.key);
    const slug = `agent-${kind.replace(/\W/g, '').toLowerCase()}`;
    try {
      expect((await ok('list_blogs')).data).toEqual([]);
      const blog = await ok('create_blog', { slug, name: 'Made by an agent', idempotency_key: `make-${slug}` });
      expect(blog).toMatchObject({ slug, name: 'Made by an agent' });
      expect((await ok('create_blog', { slug, name: 'Made by an agent', idempotency_key: `make-${slug}` })).id).toBe(blog.id); // a safe retry

      // Settings with a conditional write: a stale etag changes nothing.
      const read = await ok('get_blog', { blog_id: blog.id });
      expect(read.etag).toMatch(/^"/);
      expect((await ok('update_blog', { blog_id: blog.id, description: 'Written by tools', if_match: read.etag })).description).toBe('Written by tools');
      const stale = await call('update_blog', { blog_id: blog.id, name: 'Lost update', if_match: read.etag });
      expect(stale.structuredContent).toMatchObject({ error: 'precondition_failed' });
      expect(stale.structuredContent?.message).toContain('if_match');
      expect(stale.structuredContent?.message).not.toMatch(/If-Match/);

      // Images: upload, use in a post, list, refuse to delete while shown, delete after.
      const png = (
        await sharp({ create: { width: 320, height: 200, channels: 3, background: '#228855' } })
          .png()
          .toBuffer()
      ).toString('base64');
      const image = await ok('upload_media', { blog_id: blog.id, data_base64: png, content_type: 'image/png' });
      expect(image).toMatchObject({ width: 320, height: 200, content_type: 'image/png' });
      expect((await ok('list_media', { blog_id: blog.id })).data.map((m: { id: string }) => m.id)).toEqual([image.id]);
      expect((await ok('get_media', { blog_id: blog.id, media_id: image.id })).url).toBe(image.url);
      const post = await ok('create_post', { blog_id: blog.id, title: 'With a picture', content: `![green](${image.url})`, status: 'published' });
      expect((await call('delete_media', { blog_id: blog.id, media_id: image.id })).structuredContent).toMatchObject({ error: 'conflict' });
      const version = await ok('get_post', { blog_id: blog.id, slug: post.slug });
      expect((await ok('delete_post', { blog_id: blog.id, slug: post.slug, if_match: version.etag })).deleted).toBe(true);
      expect((await ok('delete_media', { blog_id: blog.id, media_id: image.id })).deleted).toBe(true);
      expect((await ok('get_publishing_status', { blog_id: blog.id })).failed).toBe(0);

      // A custom domain, pending until DNS proves it.
      const domain = await ok('register_domain', { blog_id: blog.id, hostname: `${slug}.example.org` });
      expect(domain).toMatchObject({ status: 'pending_verification', verification: { type: 'TXT' } });
      expect((await ok('get_domain', { blog_id: blog.id })).hostname).toBe(`${slug}.example.org`);
      expect((await ok('remove_domain', { blog_id: blog.id })).deleted).toBe(true);

      // Webhooks and their deliveries.
      const hook = await ok('create_webhook', { blog_id: blog.id, url: 'http://127.0.0.1:9/hook', events: ['post.published'] });
      expect(hook.secret).toMatch(/^whsec_/);
      expect((await ok('list_webhooks', { blog_id: blog.id })).data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
      expect((await ok('list_webhook_deliveries', { blog_id: blog.id, webhook_id: hook.id })).data).toEqual(expect.any(Array));
      expect(await call('redeliver_webhook_delivery', { blog_id: blog.id, webhook_id: hook.id, delivery_id: 'msg_none' })).toMatchObject({ isError: true });
      expect((await ok('delete_webhook', { blog_id: blog.id, webhook_id: hook.id })).deleted).toBe(true);

      // Keys: one for the blog, one for the account, both listed and revoked.
      const blogKey = await ok('create_api_key', { blog_id: blog.id, name: 'blog writer', scopes: ['posts:write', 'posts:read'] });
      expect(blogKey.key).toMatch(/^pk_live_/);
      expect((await ok('list_api_keys', { blog_id: blog.id })).data.map((k: { id: string }) => k.id)).toEqual([blogKey.id]);
      expect((await ok('revoke_api_key', { blog_id: blog.id, key_id: blogKey.id })).deleted).toBe(true);
      const accountKey = await ok('create_api_key', { name: 'reader', scopes: ['blogs:read'] });
      expect(accountKey.scopes).toEqual(['blogs:read']);
      expect((await ok('list_api_keys')).data.map((k: { id: string }) => k.id)).toContain(accountKey.id);
      expect((await ok('revoke_api_key', { key_id: accountKey.id })).deleted).toBe(true);

      const blogRead = await ok('get_blog', { blog_id: blog.id });
      expect((await ok('delete_blog', { blog_id: blog.id, if_match: blogRead.etag })).deleted).toBe(true);
      expect((await ok('list_blogs')).data).toEqual([]);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("keep the API's details and required_plan in tool errors, and name tool arguments instead of headers", async () => {
    const free = await t.createAccount('free');
    const { client, call, ok } = await connect(kind, free.key);
    try {
      const blog = await ok('create_blog', { slug: `free-${kind.replace(/\W/g, '').toLowerCase()}`, name: 'Free' });
      const post = await ok('create_post', { blog_id: blog.id, title: 'Later', content: 'x' });

      const scheduled = await call('schedule_post', { blog_id: blog.id, slug: post.slug, scheduled_at: '2099-01-01T00:00:00Z' });
      expect(scheduled.structuredContent).toMatchObject({ error: 'forbidden', required_plan: 'creator' });
      expect(scheduled.content[0]?.text).toContain('required plan: creator');
      expect((await call('register_domain', { blog_id: blog.id, hostname: 'free.example.org' })).structuredContent).toMatchObject({
        error: 'forbidden',
        required_plan: 'starter',
      });

      const invalid = await call('create_post', { blog_id: blog.id, title: ' ', content: 'x', tags: [''] });
      expect(invalid.structuredContent?.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'title' }), expect.objectContaining({ field: 'tags[0]' })]),
      );
      const badChange = await call('update_post', { blog_id: blog.id, slug: post.slug, changes: { title: ' ' } });
      expect(badChange.structuredContent?.details).toEqual([expect.objectContaining({ field: 'changes.title' })]);

      const noBlog = await call('list_posts');
      expect(noBlog.structuredContent).toMatchObject({ error: 'bad_request' });
      expect(noBlog.structuredContent?.message).toContain('blog_id');
      expect(noBlog.structuredContent?.message).not.toContain('X-Blog-Id');
      await ok('create_post', { blog_id: blog.id, title: 'Once', content: 'x', idempotency_key: 'k-1' });
      const reused = await call('create_post', { blog_id: blog.id, title: 'Other', content: 'x', idempotency_key: 'k-1' });
      expect(reused.structuredContent).toMatchObject({ error: 'idempotency_key_reused' });
      expect(reused.structuredContent?.message).toContain('idempotency_key');
      expect(reused.structuredContent?.message).not.toContain('Idempotency-Key');
    } finally {
      await client.close();
    }
  }, 60_000);
});
