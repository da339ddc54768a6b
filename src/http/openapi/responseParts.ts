/** Responses and headers the OpenAPI document shares between operations (document.ts, builtInPaths.ts). */
import { OPERATION_EXAMPLES } from './examples.js';

/** The example of an operation (examples.ts); every operation has one (test/integration/openapi.test.ts). */
export const examplesOf = (operationId: string) => OPERATION_EXAMPLES[operationId] ?? { response: undefined };

export const jsonResponse = (description: string, schema: unknown, operationId: string) => ({
  description,
  headers: REQUEST_ID_HEADER,
  content: { 'application/json': { schema, example: examplesOf(operationId).response } },
});

export const ERROR_REF = { $ref: '#/components/responses/ApiError' };

/**
 * Answers any request can get before routing, all from httpServer.ts with the usual
 * {error, message} body: a malformed request (400), an `Expect` other than 100-continue (417)
 * and oversized headers (431).
 */
export const TRANSPORT_ERRORS = { '400': ERROR_REF, '417': ERROR_REF, '431': ERROR_REF };

/** Headers on every answer, and on every answer to a request with a key. */
export const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
export const HEADER_COMPONENTS = {
  'X-Request-Id': { description: 'Id of this request, as logged (echoed when the request sent a well-formed one)', required: true, schema: { type: 'string' } },
  'X-RateLimit-Limit': {
    description: "Requests allowed per window: per hour by the account's plan, or per minute per client address on the operations without a key",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets (Unix seconds)', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};
