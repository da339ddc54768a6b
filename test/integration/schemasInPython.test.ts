/**
 * The MCP tools' input schemas and the OpenAPI document's patterns compile in Python's
 * `jsonschema` (what an outside audit used, and what Python agents validate with): Draft 2020-12
 * with format checks, so no `\p{…}` classes and no ECMAScript-only syntax. It needs Debian's
 * python3-jsonschema, which .ci/run installs: so it runs in the shipping suite (npm run
 * test:ship), not in `npm test`, which needs nothing but Node. mcpTools.test.ts checks the
 * descriptions and the absence of `\p{…}` in `npm test`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { patternsIn } from '../support/schemaPatterns.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const run = promisify(execFile);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** Checks each schema and validates the instances with it; prints whether each was valid. */
const PYTHON = `
import json, sys
from jsonschema import Draft202012Validator, FormatChecker
job = json.load(sys.stdin)
for schema in job["schemas"]:
    Draft202012Validator.check_schema(schema)
out = []
for index, instance in job["instances"]:
    out.append(Draft202012Validator(job["schemas"][index], format_checker=FormatChecker()).is_valid(instance))
print(json.dumps(out))
`;

async function python(schemas: unknown[], instances: [number, unknown][]): Promise<boolean[]> {
  const child = run('/usr/bin/python3', ['-c', PYTHON]);
  child.child.stdin!.end(JSON.stringify({ schemas, instances }));
  return JSON.parse((await child).stdout) as boolean[];
}

it('every MCP tool schema compiles in Python jsonschema and validates slugs as the API does', async () => {
  const client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${t.key}` } } }));
  try {
    const { tools } = await client.listTools();
    const createPost = tools.findIndex((tool) => tool.name === 'create_post');
    expect(createPost).toBeGreaterThanOrEqual(0);
    const valid = await python(
      tools.map((tool) => tool.inputSchema),
      [
        [createPost, { title: 'T', content: 'x', slug: '한국어-글' }],
        [createPost, { title: 'T', content: 'x', slug: 'café-2024' }],
        [createPost, { title: 'T', content: 'x', slug: 'Bad Slug' }],
        [createPost, { title: 'T', content: 'x', slug: 'double--hyphen' }],
      ],
    );
    expect(valid).toEqual([true, true, false, false]);
  } finally {
    await client.close();
  }
}, 60_000);

it("every pattern of the OpenAPI document compiles in Python's jsonschema", async () => {
  const doc = await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json();
  const patterns = patternsIn(doc);
  expect(patterns.length).toBeGreaterThan(3);
  // check_schema raises (a non-zero exit, so a rejected promise) on a pattern Python cannot compile.
  expect(
    await python(
      patterns.map((pattern) => ({ type: 'string', pattern })),
      [],
    ),
  ).toEqual([]);
}, 60_000);
