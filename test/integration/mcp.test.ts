/**
 * The MCP server (issue 14) driven by the official SDK's own Client, as an assistant would use
 * it, against a real running Folio: over stdio (`folio mcp`, a real subprocess talking to the
 * server over HTTP) and over Streamable HTTP (`POST /mcp` on the server itself).
 */
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));
const TOOLS = [
  'create_api_key',
  'create_blog',
  'create_post',
  'create_preview_link',
  'create_webhook',
  'delete_blog',
  'delete_media',
  'delete_post',
  'delete_webhook',
  'get_account',
  'get_analytics',
  'get_blog',
  'get_domain',
  'get_media',
  'get_post',
  'get_publishing_status',
  'get_revision',
  'list_api_keys',
  'list_blogs',
  'list_media',
  'list_posts',
  'list_revisions',
  'list_webhook_deliveries',
  'list_webhooks',
  'publish_post',
  'redeliver_webhook_delivery',
  'register_domain',
  'remove_domain',
  'restore_revision',
  'revoke_api_key',
  'schedule_post',
  'search_posts',
  'unpublish_post',
  'update_blog',
  'update_post',
  'upload_media',
];

let t: TestApp;
beforeAll(async () => {
  expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
  t = await startTestApp();
});
afterAll(async () => t.close());

/** A page of a published blog, asked for with its blog's Host (fetch cannot set Host). */
function sitePage(url: URL): Promise<{ status: number; text: string }> {
  const server = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    get({ hostname: server.hostname, port: server.port, path: url.pathname, headers: { host: url.host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
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

async function connect(kind: string, key: string): Promise<{ call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>; client: Client }> {
  const client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(transports[kind]!(key));
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  return { call, client };
}

describe.each(Object.keys(transports))('MCP over %s', (kind) => {
  it('lists the tools with the API schemas and marks the destructive ones', async () => {
    const { client } = await connect(kind, t.key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('create_post')!.inputSchema.required).toEqual(['title', 'content']);
      expect(Object.keys(byName.get('create_post')!.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['blog_id', 'title', 'content', 'tags', 'status', 'meta']),
      );
      expect(JSON.stringify(byName.get('create_post')!.inputSchema)).not.toContain('x-hint');
      expect(byName.get('schedule_post')!.inputSchema.required).toEqual(['slug', 'scheduled_at']);
      for (const name of [
        'delete_post',
        'unpublish_post',
        'update_post',
        'delete_blog',
        'delete_media',
        'revoke_api_key',
        'delete_webhook',
        'remove_domain',
        'restore_revision',
      ])
        expect(byName.get(name)!.annotations?.destructiveHint, name).toBe(true);
      for (const name of ['list_blogs', 'list_posts', 'get_post', 'search_posts', 'list_media', 'get_blog', 'list_webhooks', 'list_revisions', 'get_revision'])
        expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(true);
      expect(byName.get('create_post')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    } finally {
      await client.close();
    }
  });

  it('writes, schedules and publishes posts end to end: the pages are served and searchable, then unpublished and deleted', async () => {
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: `mcp-${kind.replace(/\W/g, '').toLowerCase()}`, name: 'Agent blog' } })).body;
    const { call, client } = await connect(kind, t.key);
    try {
      expect((await call('list_blogs')).structuredContent?.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: blog.id })]));
      const created = await call('create_post', {
        blog_id: blog.id,
        title: '에이전트가 쓴 글',
        content: '# Hello\n\nWritten by an **agent** through MCP. 블로그를 씁니다.',
        tags: ['agents'],
      });
      expect(created.isError).toBeFalsy();
      const slug = String(created.structuredContent?.slug);
      expect(created.structuredContent?.status).toBe('draft');

      const edited = await call('update_post', { blog_id: blog.id, slug, changes: { tags: ['agents', 'mcp'] } });
      expect(edited.structuredContent?.tags).toEqual(['agents', 'mcp']);
      const published = await call('publish_post', { blog_id: blog.id, slug });
      expect(published.structuredContent?.status).toBe('published');
      const url = new URL(String(published.structuredContent?.url));
      const page = await sitePage(url);
      expect(page.status).toBe(200);
      expect(page.text).toContain('에이전트가 쓴 글');
      expect((await call('search_posts', { blog_id: blog.id, q: '블로그' })).structuredContent?.data).toEqual([expect.objectContaining({ slug })]);
      expect((await call('get_post', { blog_id: blog.id, slug })).structuredContent?.content_html).toContain('<strong>agent</strong>');

      // Scheduled: published by the server's scheduler when the time comes.
      const later = await call('create_post', { blog_id: blog.id, title: 'Scheduled by an agent', content: 'Comes out later.' });
      const laterSlug = String(later.structuredContent?.slug);
      const at = new Date(t.clock.now().getTime() + 60_000).toISOString();
      expect((await call('schedule_post', { blog_id: blog.id, slug: laterSlug, scheduled_at: at })).structuredContent).toMatchObject({
        status: 'scheduled',
        scheduled_at: at,
      });
      t.clock.advance(60_000);
      await t.folio.tick();
      await t.folio.idle();
      expect((await call('get_post', { blog_id: blog.id, slug: laterSlug })).structuredContent?.status).toBe('published');
      expect((await call('list_posts', { blog_id: blog.id, status: 'published' })).structuredContent?.pagination).toMatchObject({ total: 2 });

      expect((await call('unpublish_post', { blog_id: blog.id, slug })).structuredContent?.status).toBe('draft');
      expect((await call('search_posts', { blog_id: blog.id, q: '블로그' })).structuredContent?.data).toEqual([]);
      expect((await call('delete_post', { blog_id: blog.id, slug })).structuredContent).toEqual({ deleted: true });
      const gone = await call('get_post', { blog_id: blog.id, slug });
      expect(gone.isError).toBe(true);
      expect(gone.structuredContent).toMatchObject({ error: 'not_found' });
    } finally {
      await client.close();
    }
  });

  it("lists a post's revisions, reads one and restores it", async () => {
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: `mcp-rev-${kind.replace(/\W/g, '').toLowerCase()}`, name: 'History' } })).body;
    const { call, client } = await connect(kind, t.key);
    try {
      const slug = String((await call('create_post', { blog_id: blog.id, title: 'First draft', content: 'The first words.' })).structuredContent?.slug);
      t.clock.advance(10 * 60_000);
      await call('update_post', { blog_id: blog.id, slug, changes: { content: 'Words regretted.' } });
      const listed = (await call('list_revisions', { blog_id: blog.id, slug })).structuredContent!;
      expect(listed.pagination).toMatchObject({ total: 2 });
      const first = (listed.data as { id: string }[])[1]!;
      expect((await call('get_revision', { blog_id: blog.id, slug, revision_id: first.id })).structuredContent).toMatchObject({
        content_md: 'The first words.',
      });
      const stale = await call('restore_revision', { blog_id: blog.id, slug, revision_id: first.id, if_match: '"stale"' });
      expect(stale.structuredContent).toMatchObject({ error: 'precondition_failed' });
      expect((await call('restore_revision', { blog_id: blog.id, slug, revision_id: first.id })).structuredContent).toMatchObject({
        slug,
        title: 'First draft',
      });
      expect((await call('get_post', { blog_id: blog.id, slug })).structuredContent).toMatchObject({ content_md: 'The first words.' });
      expect((await call('get_revision', { blog_id: blog.id, slug, revision_id: 'nope' })).structuredContent).toMatchObject({ error: 'not_found' });
    } finally {
      await client.close();
    }
  });

  it('makes a preview link to a draft, which opens without a key', async () => {
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: `mcp-pv-${kind.replace(/\W/g, '').toLowerCase()}`, name: 'Previews' } })).body;
    const { call, client } = await connect(kind, t.key);
    try {
      const slug = String((await call('create_post', { blog_id: blog.id, title: 'Not yet', content: 'A draft to show.' })).structuredContent?.slug);
      const made = (await call('create_preview_link', { blog_id: blog.id, slug, expires_in: 3600 })).structuredContent!;
      expect(Date.parse(String(made.expires_at)) - t.clock.now().getTime()).toBe(3_600_000);
      const page = await fetch(`${t.baseUrl}${new URL(String(made.url)).pathname}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('A draft to show.');
      const bad = await call('create_preview_link', { blog_id: blog.id, slug, expires_in: 5 });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ error: 'bad_request' });
    } finally {
      await client.close();
    }
  });

  it("answers bad input and missing scopes as tool errors carrying the API's error and message", async () => {
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: `mcp-err-${kind.replace(/\W/g, '').toLowerCase()}`, name: 'Errors' } })).body;
    const { call, client } = await connect(kind, t.key);
    try {
      const invalid = await call('create_post', { blog_id: blog.id, title: 'No content' });
      expect(invalid.isError).toBe(true);
      expect(invalid.structuredContent).toMatchObject({ error: 'bad_request' });
      expect(invalid.content[0]?.text).toMatch(/^bad_request: .*content/);
      expect((await call('publish_post', { blog_id: blog.id })).structuredContent).toEqual({
        error: 'bad_request',
        message: 'slug is required',
        details: [{ field: 'slug', message: 'is required' }],
      });
      expect((await call('list_posts')).structuredContent).toMatchObject({ error: 'bad_request' }); // no blog: the key is not bound to one
    } finally {
      await client.close();
    }

    const reader = (await t.request('POST', '/v1/account/api-keys', { body: { name: 'reader', scopes: ['posts:read', 'blogs:read'] } })).body.key as string;
    const limited = await connect(kind, reader);
    try {
      expect((await limited.call('list_posts', { blog_id: blog.id })).isError).toBeFalsy();
      const refused = await limited.call('create_post', { blog_id: blog.id, title: 'Not allowed', content: 'x' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: 'forbidden' });
    } finally {
      await limited.client.close();
    }
  });
});

describe('create_api_key with expires_at', () => {
  it('takes expires_at, answers it, and refuses a past one with the API message', async () => {
    const { call, client } = await connect('streamable HTTP', t.key);
    try {
      const { tools } = await client.listTools();
      const schema = tools.find((tool) => tool.name === 'create_api_key')!.inputSchema as { properties: Record<string, { type?: unknown }> };
      expect(schema.properties.expires_at?.type).toEqual(['string', 'null']);
      const expiresAt = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
      const created = await call('create_api_key', { name: 'agent, for a day', scopes: ['posts:*'], expires_at: expiresAt });
      expect(created.isError ?? false).toBe(false);
      expect(created.structuredContent).toMatchObject({ name: 'agent, for a day', scopes: ['posts:*'], expires_at: expiresAt });
      const listed = await call('list_api_keys');
      const keys = (listed.structuredContent?.data ?? []) as { id: string; expires_at: string | null }[];
      const entry = keys.find((k) => k.id === created.structuredContent?.id);
      expect(entry?.expires_at).toBe(expiresAt);
      const past = await call('create_api_key', { expires_at: '2020-01-01T00:00:00Z' });
      expect(past.isError).toBe(true);
      expect(past.content[0]?.text).toMatch(/expires_at must be in the future/);
    } finally {
      await client.close();
    }
  });
});

describe('POST /mcp', () => {
  it('refuses a request without a valid key (401), and GET with 405, with the API error body', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const anonymous = await fetch(new URL('/mcp', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(init),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'unauthorized' });
    const get = await fetch(new URL('/mcp', t.baseUrl), { headers: { authorization: `Bearer ${t.key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it("answers a message the SDK would refuse (an extra key; params not an object; a batch) with the API error body, not JSON-RPC's", async () => {
    for (const body of [
      { jsonrpc: '2.0', method: ' ', '': [] },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] },
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ]) {
      const res = await fetch(new URL('/mcp', t.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/JSON-RPC 2\.0 message/) });
    }
  });
});
