/**
 * The MCP server's tools (the list is in docs/cli.md): each is one call of the typed API
 * client, so an assistant can do what any API client with the same key can do — the API checks
 * the key's scopes and plan, validates the input and answers errors, which come back to the
 * assistant as tool errors with the API's `error`, `message`, `details` and `required_plan`.
 *
 * Input schemas are the JSON Schemas the API validates with (src/http/routes/*.schema.ts, as
 * the OpenAPI document publishes them), plus identifiers, and arguments for what the API takes
 * as headers: `blog_id` (X-Blog-Id), `if_match` (If-Match), `idempotency_key` (Idempotency-Key).
 */
import { ACCESS_TOOLS } from './accessTools.js';
import { BLOG_TOOLS } from './blogTools.js';
import { MEDIA_TOOLS } from './mediaTools.js';
import { POST_TOOLS } from './postTools.js';
import type { FolioTool } from './toolKit.js';

export type { FolioTool, ToolAnnotations } from './toolKit.js';

export const TOOLS: readonly FolioTool[] = [...BLOG_TOOLS, ...POST_TOOLS, ...MEDIA_TOOLS, ...ACCESS_TOOLS];
