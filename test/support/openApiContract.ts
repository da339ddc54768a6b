/**
 * Every answer the integration suites get through TestApp.request is checked against the
 * app's own GET /v1/openapi.json: the status must be one the operation documents, and a JSON
 * body must match that status's schema (`required` fields included). A mismatch throws, failing
 * the test that made the request: the document must describe what the server really answers,
 * or generated clients break.
 */
import { Ajv, type ValidateFunction } from 'ajv';

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allowUnionTypes: true, validateFormats: false });
  private readonly routes: { method: string; pattern: RegExp; literal: number; responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> }[] = [];
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+').replace(/\{\w+\}/g, '[^/]+')}$`);
        this.routes.push({ method: method.toUpperCase(), pattern, literal: path.replace(/\{\w+\}/g, '').length, responses: op.responses });
      }
    }
    this.routes.sort((a, b) => b.literal - a.literal);
  }

  /** Throws when the answer is not what the document says `method path` answers. */
  check(method: string, target: string, status: number, contentType: string, body: unknown): void {
    const path = target.split('?')[0]!;
    const route = this.routes.find((r) => r.method === (method === 'HEAD' ? 'GET' : method) && r.pattern.test(path));
    // Not an API operation (an unknown path, a wrong method): the 404 is checked as an error below.
    const documented = route?.responses[String(status)];
    if (route && !documented) throw new Error(`OpenAPI contract: ${method} ${path} answered ${status}, which the document does not list (${Object.keys(route.responses).join(', ')})`);
    if (!contentType.startsWith('application/json') || body === undefined) return;
    const schema = documented?.$ref === '#/components/responses/Error' || !documented ? this.doc.components.schemas.Error : documented.content?.['application/json']?.schema;
    if (!schema) return;
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema as object);
      this.validators.set(schema, validate);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
      throw new Error(`OpenAPI contract: ${method} ${path} → ${status} does not match its schema: ${problems}\n${JSON.stringify(body).slice(0, 400)}`);
    }
  }
}
