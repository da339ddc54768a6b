/**
 * The MCP server's transports (issue 27 items 15 and 30): over stdio, requests piped before
 * the input ends are all answered; over HTTP, one tool call costs one request of the account's
 * hourly budget; `arguments` of the wrong type is JSON-RPC's -32602 invalid params on both.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BIN = fileURLToPath(new URL('../../bin/folio.js', import.meta.url));

let t: TestApp;
beforeAll(async () => {
  expect(existsSync(fileURLToPath(new URL('../../dist/src/cliMain.js', import.meta.url))), 'run `npx tsc -p .` first').toBe(true);
  t = await startTestApp({ env: { FOLIO_RATE_LIMITS: 'on' } });
});
afterAll(async () => t.close());

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
};
const toolCall = (id: number, name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** `folio mcp` fed `messages` at once, its input then closed: every line it wrote, and its exit code. */
function pipeThrough(key: string, messages: unknown[]): Promise<{ answers: any[]; code: number | null }> {
  const child = spawn(process.execPath, [BIN, 'mcp'], {
    env: { PATH: process.env.PATH ?? '', FOLIO_API_URL: t.baseUrl, FOLIO_API_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        answers: out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
        code,
      }),
    );
  });
}

async function remaining(key: string): Promise<number> {
  const res = await fetch(`${t.baseUrl}/v1/blogs`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-ratelimit-remaining'));
}

describe('folio mcp over stdio', () => {
  it('answers every request piped in before its input ended, then exits 0', async () => {
    const blog = (await t.request('POST', '/v1/blogs', { body: { slug: 'piped', name: 'Piped' } })).body;
    const { answers, code } = await pipeThrough(t.key, [
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      toolCall(2, 'list_blogs', {}),
      toolCall(3, 'create_post', { blog_id: blog.id, title: 'Piped in', content: 'Sent before stdin closed.' }),
      toolCall(4, 'list_posts', { blog_id: blog.id }),
      toolCall(5, 'create_post', 'not an object'),
      { jsonrpc: '2.0', id: 6, method: 'tools/list' },
    ]);
    expect(code).toBe(0);
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    expect(byId.get(3).result.structuredContent).toMatchObject({ slug: 'piped-in', status: 'draft' });
    expect(byId.get(5).error.code).toBe(-32602);
    expect((await t.request('GET', '/v1/posts/piped-in', { blogId: blog.id })).status).toBe(200);
  }, 60_000);
});

describe('POST /mcp', () => {
  it('costs one request of the hourly budget per tool call, whatever the tool does, and nothing for the handshake', async () => {
    const account = await t.createAccount('starter');
    const blog = (await t.request('POST', '/v1/blogs', { key: account.key, body: { slug: 'budget', name: 'Budget' } })).body;
    const before = await remaining(account.key);
    const client = new Client({ name: 'budget', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${account.key}` } } }),
    );
    try {
      await client.listTools();
      const created = await client.callTool({ name: 'create_post', arguments: { blog_id: blog.id, title: 'Counted once', content: 'x', status: 'published' } });
      expect(created.isError).toBeFalsy();
      const read = await client.callTool({ name: 'get_post', arguments: { blog_id: blog.id, slug: 'counted-once' } });
      expect(read.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // Two tool calls, then this read.
    expect(before - (await remaining(account.key))).toBe(3);
    // The grant of a tool's API calls cannot be made up by a client.
    const forged = await fetch(`${t.baseUrl}/v1/blogs`, { headers: { authorization: `Bearer ${account.key}`, 'x-folio-mcp-grant': 'made-up' } });
    expect(Number(forged.headers.get('x-ratelimit-remaining'))).toBe(before - 4);
  }, 60_000);

  it('answers arguments of the wrong type with -32602 invalid params, not -32603', async () => {
    for (const args of ['text', 42, [1, 2]]) {
      const res = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(toolCall(7, 'list_blogs', args)),
      });
      expect(res.status).toBe(200);
      const answer = await res.json();
      expect(answer, JSON.stringify(args)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    }
  });
});
