import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Middleware } from 'koa';
import { BadRequestError, type FieldIssue } from '../../errors.js';
import type { AppState } from '../state.js';

export type JsonSchema = Record<string, unknown>;

function addKeywords(ajv: Ajv): Ajv {
  // api.md's "1 MB" of Markdown is measured in UTF-8 bytes, not characters.
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
  return ajv;
}

// Bodies are never coerced: "10" is not a number. Query strings are text, so they are.
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

const bodyAjv = addKeywords(new Ajv({ allErrors: true, strict: true, coerceTypes: false, allowUnionTypes: true, verbose: true }));
const queryAjv = addKeywords(new Ajv({ allErrors: true, strict: true, coerceTypes: true, useDefaults: true, allowUnionTypes: true, verbose: true }));

/** Compiles once per schema object, however many apps the tests create. */
export function compileSchema(schema: JsonSchema, where: 'body' | 'query'): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) {
    check = (where === 'body' ? bodyAjv : queryAjv).compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** `/tags/3` → `tags[3]`, `/meta/description` → `meta.description`. */
function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describeIssue(error: ErrorObject): FieldIssue {
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
  const details = (errors ?? []).filter((e) => e.keyword !== 'if').map(describeIssue);
  // One issue per field is enough; allErrors can report the same field twice (type + pattern).
  const unique = details.filter((d, i) => details.findIndex((o) => o.field === d.field) === i);
  const first = unique[0];
  const summary = first ? `${first.field ? `${first.field} ` : ''}${first.message}` : 'is invalid';
  return new BadRequestError(`invalid ${where === 'body' ? 'request body' : 'query parameters'}: ${summary}`, { details: unique });
}

/** Checks ctx.request.body / ctx.query and stores the typed value on ctx.state. */
export function validate(where: 'body' | 'query', check: ValidateFunction): Middleware<AppState> {
  return async (ctx, next) => {
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
      if (!check(query)) throw validationError(check.errors, 'query');
      ctx.state.query = query;
    }
    return next();
  };
}
