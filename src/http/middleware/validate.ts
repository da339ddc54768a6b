import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Middleware } from 'koa';
import { BadRequestError, type FieldIssue } from '../../domain/errors.js';
import type { AppState } from '../state.js';

export type JsonSchema = Record<string, unknown>;

function addKeywords(ajv: Ajv): Ajv {
  // The 1 MB limit of a post's Markdown is measured in UTF-8 bytes, not characters.
  ajv.addKeyword({
    keyword: 'maxBytes',
    type: 'string',
    schemaType: 'number',
    errors: true,
    validate: function maxBytes(limit: number, data: string) {
      return Buffer.byteLength(data, 'utf8') <= limit;
    },
  });
  // Annotation only: a friendlier message for pattern and enum failures.
  ajv.addKeyword({ keyword: 'x-hint', schemaType: 'string' });
  // Annotation only: the pattern published in place of `pattern` (publicSchema.ts).
  ajv.addKeyword({ keyword: 'x-public-pattern', schemaType: 'string' });
  return ajv;
}

// Nothing is coerced by Ajv: in a body "10" is not a number, and query integers are parsed by
// parseQueryIntegers below, because Ajv's coercion takes any JavaScript number syntax
// ("Infinity", "1e309", "0x10", " 1") and let "Infinity" through `maximum`, which then failed in SQLite.
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * The two validators, made when the first schema is compiled (a route's first request, or the
 * warm-up once the server listens): loading ajv is part of the start-up a first answer needn't wait for.
 */
let engines: { body: Ajv; query: Ajv } | null = null;
export function validators(): { body: Ajv; query: Ajv } {
  if (engines) return engines;
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  engines = {
    body: addKeywords(new AjvClass({ allErrors: true, strict: true, coerceTypes: false, allowUnionTypes: true, verbose: true })),
    query: addKeywords(new AjvClass({ allErrors: true, strict: true, coerceTypes: false, useDefaults: true, allowUnionTypes: true, verbose: true })),
  };
  return engines;
}

/** A query integer is decimal digits only: no sign, point, exponent, hex, blanks or `Infinity`. */
const DECIMAL_DIGITS = /^[0-9]+$/;

/** At most this many `details` entries; a 2 MB body can hold 50,000 unknown keys. */
export const MAX_DETAILS = 100;

/** Compiles once per schema object, however many apps the tests create. */
export function compileSchema(schema: JsonSchema, where: 'body' | 'query'): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) {
    check = validators()[where].compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/**
 * Names of the query parameters a schema declares as integers. Each must have a `maximum` within
 * the exactly representable integers: a digit string too long for a double then fails that
 * `maximum` check instead of reaching SQLite as 1e20 or Infinity.
 */
function integerParams(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown; maximum?: unknown }> } | null)?.properties ?? {};
  const names: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property.type !== 'integer') continue;
    if (typeof property.maximum !== 'number' || property.maximum > Number.MAX_SAFE_INTEGER) {
      throw new Error(`query parameter ${name}: an integer parameter needs a maximum of at most ${Number.MAX_SAFE_INTEGER}`);
    }
    names.push(name);
  }
  return names;
}

/**
 * Decimal digit strings become numbers; anything else stays a string and fails `type: integer`.
 * Digits past the exact integers are capped at 2^53 (400 nines would be Infinity, which fails
 * `type` instead): still above every maximum, so the answer names the maximum.
 */
function parseQueryIntegers(query: Record<string, unknown>, names: string[]): void {
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string' && DECIMAL_DIGITS.test(value)) query[name] = Math.min(Number(value), 2 ** 53);
  }
}

/** `/tags/3` → `tags[3]`, `/meta/description` → `meta.description`. */
function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describeIssue(error: ErrorObject, where: 'body' | 'query'): FieldIssue {
  const p = error.params as Record<string, unknown>;
  const hint = (error.parentSchema as Record<string, unknown> | undefined)?.['x-hint'];
  switch (error.keyword) {
    case 'pattern':
      return { field: fieldName(error.instancePath), message: typeof hint === 'string' ? hint : 'has an invalid format' };
    case 'required':
      return { field: fieldName(error.instancePath, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { field: fieldName(error.instancePath, String(p.additionalProperty)), message: 'is not an allowed field' };
    case 'type':
      if (where === 'query' && p.type === 'integer') {
        return { field: fieldName(error.instancePath), message: 'must be a whole number written with the digits 0-9 only' };
      }
      return { field: fieldName(error.instancePath), message: `must be ${String(p.type).replace(',', ' or ')}` };
    case 'maxLength':
      return { field: fieldName(error.instancePath), message: `must be at most ${String(p.limit)} characters` };
    case 'minLength':
      return { field: fieldName(error.instancePath), message: Number(p.limit) === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters` };
    case 'maxItems':
      return { field: fieldName(error.instancePath), message: `must have at most ${String(p.limit)} entries` };
    case 'maxBytes':
      return { field: fieldName(error.instancePath), message: 'must be at most 1 MB (1,048,576 bytes of UTF-8)' };
    case 'enum':
      return {
        field: fieldName(error.instancePath),
        message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}${typeof hint === 'string' ? ` (${hint})` : ''}`,
      };
    case 'minimum':
      return { field: fieldName(error.instancePath), message: `must be at least ${String(p.limit)}` };
    case 'maximum':
      return { field: fieldName(error.instancePath), message: `must be at most ${String(p.limit)}` };
    case 'uniqueItems':
      return { field: fieldName(error.instancePath), message: 'must not repeat entries' };
    case 'minItems':
      return { field: fieldName(error.instancePath), message: `must have at least ${String(p.limit)} entr${Number(p.limit) === 1 ? 'y' : 'ies'}` };
    case 'minProperties':
      return { field: fieldName(error.instancePath) || 'body', message: 'must contain at least one field' };
    default:
      return { field: fieldName(error.instancePath) || 'body', message: error.message ?? 'is invalid' };
  }
}

export function validationError(errors: ErrorObject[] | null | undefined, where: 'body' | 'query'): BadRequestError {
  // One issue per field is enough; allErrors can report the same field twice (type + pattern).
  // A Set keeps this linear: a 2 MB body can hold tens of thousands of unknown keys.
  const seen = new Set<string>();
  const details: FieldIssue[] = [];
  for (const error of errors ?? []) {
    if (error.keyword === 'if') continue;
    const issue = describeIssue(error, where);
    if (seen.has(issue.field)) continue;
    seen.add(issue.field);
    if (details.length < MAX_DETAILS) details.push(issue);
  }
  const first = details[0];
  const summary = first ? `${first.field ? `${first.field} ` : ''}${first.message}` : 'is invalid';
  const more = seen.size > details.length ? ` (${seen.size} fields have problems; details lists the first ${details.length})` : '';
  return new BadRequestError(`invalid ${where === 'body' ? 'request body' : 'query parameters'}: ${summary}${more}`, { details });
}

/** Schemas of the routes built so far, for the warm-up after start-up (`schemaWarmUpSteps`). */
const declared: { schema: JsonSchema; where: 'body' | 'query' }[] = [];

/**
 * One step per route schema not compiled yet, for the server to run one per turn of the event
 * loop after its first answer: a route's first caller then does not wait for ajv to compile
 * its schema.
 */
export function schemaWarmUpSteps(): (() => void)[] {
  return declared
    .filter(({ schema }) => !compiled.has(schema))
    .map(
      ({ schema, where }) =>
        () =>
          void compileSchema(schema, where),
    );
}

/**
 * Validates the body or the query against `schema` (stored on ctx.state), compiled on the
 * route's first request or by the warm-up: ajv compiling every route's schemas was a quarter of
 * the server's start-up.
 */
export function validate(where: 'body' | 'query', schema: JsonSchema): Middleware<AppState> {
  if (!declared.some((d) => d.schema === schema && d.where === where)) declared.push({ schema, where });
  const integers = where === 'query' ? integerParams(schema) : [];
  return async (ctx, next) => {
    const check = compileSchema(schema, where);
    if (where === 'body') {
      const body = ctx.request.body === undefined ? {} : ctx.request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new BadRequestError('request body must be a JSON object');
      }
      if (!check(body)) throw validationError(check.errors, 'body');
      ctx.state.body = body;
    } else {
      // Repeated parameters (?page=1&page=2) arrive as arrays and fail the type checks.
      const query: Record<string, unknown> = { ...ctx.query };
      parseQueryIntegers(query, integers);
      if (!check(query)) throw validationError(check.errors, 'query');
      ctx.state.query = query;
    }
    return next();
  };
}
