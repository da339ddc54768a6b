/**
 * What every MCP tool is made of (tools.ts lists them): its schema helpers, the arguments that
 * stand for REST headers (`blog_id` for X-Blog-Id, `if_match` for If-Match, `idempotency_key`
 * for Idempotency-Key), and how a tool reads them.
 */
import { FolioApiError, type FolioClient, type WriteOptions } from '../client/folioClient.js';
import { publicSchema } from '../http/openapi/publicSchema.js';

export type Json = Record<string, unknown>;

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Every tool acts on this Folio only. */
  openWorldHint: false;
}

export interface FolioTool {
  name: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  annotations: ToolAnnotations;
  /** Where the API's body sits in the arguments (`changes` of update_post), for its `details`. */
  bodyArgument?: string;
  run(client: FolioClient, args: Json): Promise<unknown>;
}

export const blogIdArg = {
  type: 'string',
  description: 'The blog to act on (list_blogs gives the ids); defaults to the blog of a blog-bound key, or FOLIO_BLOG_ID',
} as const;
/** For tools whose API path names the blog (its settings, domain, keys, webhooks). */
export const blogPathArg = {
  type: 'string',
  description: 'The blog to act on (list_blogs gives the ids); defaults to FOLIO_BLOG_ID where the server running this tool sets it',
} as const;
export const ifMatchArg = {
  type: 'string',
  description:
    'The etag of the version you read (get_post, get_blog): the change happens only if nobody changed it since, else precondition_failed and nothing changes',
} as const;
export const idempotencyKeyArg = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Any unique string (a UUID) that makes a retry safe: the same key with the same arguments within 24 hours answers the first result again without doing the work twice',
} as const;
export const pageArgs = {
  page: { type: 'integer', minimum: 1, description: 'Page to return, from 1' },
  per_page: { type: 'integer', minimum: 1, maximum: 100, description: 'Items per page, at most 100 (default 20)' },
} as const;

/** An API schema as a tool input, with `extra` properties (identifiers) added first. */
export function input(schema: object, extra: Json = {}, required: string[] = []): Json & { type: 'object' } {
  const published = publicSchema(schema) as { properties?: Json; required?: string[] };
  return {
    ...published,
    type: 'object',
    additionalProperties: false,
    properties: { ...extra, ...published.properties },
    required: [...required, ...(published.required ?? [])],
  };
}

/** A tool input of identifiers only. */
export const idsOnly = (properties: Json, required: string[] = []): Json & { type: 'object' } => ({
  type: 'object',
  additionalProperties: false,
  properties,
  required,
});

export function annotations(title: string, kind: 'read' | 'write' | 'destructive', idempotent = kind !== 'write'): ToolAnnotations {
  return { title, readOnlyHint: kind === 'read', destructiveHint: kind === 'destructive', idempotentHint: idempotent, openWorldHint: false };
}

export const str = (args: Json, name: string): string => String(args[name]);
export const blogOf = (args: Json): string | undefined => (typeof args.blog_id === 'string' ? args.blog_id : undefined);

/** The blog of a call whose API path names one: the argument, else the client's default. */
export function blogPathOf(client: FolioClient, args: Json): string {
  const id = blogOf(args) ?? client.defaultBlogId;
  if (!id)
    throw new FolioApiError(400, 'bad_request', 'blog_id is required: list_blogs gives the ids', { details: [{ field: 'blog_id', message: 'is required' }] });
  return id;
}

/** `if_match` and `idempotency_key` as the client's write options. */
export function writeOf(args: Json): WriteOptions {
  return {
    ...(typeof args.if_match === 'string' ? { ifMatch: args.if_match } : {}),
    ...(typeof args.idempotency_key === 'string' ? { idempotencyKey: args.idempotency_key } : {}),
  };
}

/** The arguments without the identifiers the tool itself consumes: what the API receives. */
export function without(args: Json, ...names: string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(args)) if (!names.includes(key)) out[key] = value;
  return out;
}

/** The answer with its ETag as `etag`, for a later `if_match`. */
export const withEtag = ({ data, etag }: { data: object; etag: string | null }): Json => ({ ...data, etag });
