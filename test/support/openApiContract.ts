/**
 * Every answer the integration suites get through TestApp.request is checked against the
 * app's own GET /v1/openapi.json: the status must be one the operation documents, and a JSON
 * body must match that status's schema (`required` fields included). A mismatch throws, failing
 * the test that made the request: the document must describe what the server really answers,
 * or generated clients break.
 */
import { Ajv, type ValidateFunction } from 'ajv';

interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: { type?: string; enum?: string[] };
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: { schemas: Record<string, unknown>; headers: Record<string, HeaderObject>; responses: Record<string, ResponseObject> };
}

export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allowUnionTypes: true, validateFormats: false });
  private readonly routes: { method: string; pattern: RegExp; literal: number; responses: Record<string, ResponseObject> }[] = [];
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const pattern = new RegExp(
          `^${path
            .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
            .replace(/\\?\{\w+\\?\}/g, '[^/]+')
            .replace(/\{\w+\}/g, '[^/]+')}$`,
        );
        this.routes.push({ method: method.toUpperCase(), pattern, literal: path.replace(/\{\w+\}/g, '').length, responses: op.responses });
      }
    }
    this.routes.sort((a, b) => b.literal - a.literal);
  }

  /** Throws when the answer is not what the document says `method path` answers. */
  check(method: string, target: string, status: number, headers: Headers, body: unknown): void {
    const contentType = headers.get('content-type') ?? '';
    const path = target.split('?')[0]!;
    const route = this.routes.find((r) => r.method === (method === 'HEAD' ? 'GET' : method) && r.pattern.test(path));
    // Not an API operation (an unknown path, a wrong method): the 404 is checked as an error below.
    const documented = route?.responses[String(status)];
    if (route && !documented)
      throw new Error(`OpenAPI contract: ${method} ${path} answered ${status}, which the document does not list (${Object.keys(route.responses).join(', ')})`);
    if (documented) this.checkHeaders(`${method} ${path} → ${status}`, documented, headers);
    if (!contentType.startsWith('application/json') || body === undefined) return;
    const schema =
      documented?.$ref === '#/components/responses/ApiError' || !documented
        ? this.doc.components.schemas.ApiError
        : documented.content?.['application/json']?.schema;
    if (!schema) return;
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema as object);
      this.validators.set(schema, validate);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message}`)
        .join('; ');
      throw new Error(`OpenAPI contract: ${method} ${path} → ${status} does not match its schema: ${problems}\n${JSON.stringify(body).slice(0, 400)}`);
    }
  }

  /** Required headers are sent; integer and enum headers hold what their schema says. */
  private checkHeaders(where: string, documented: ResponseObject, headers: Headers): void {
    const response = documented.$ref ? this.doc.components.responses[documented.$ref.split('/').pop()!]! : documented;
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = declared.$ref ? this.doc.components.headers[declared.$ref.split('/').pop()!]! : declared;
      const value = headers.get(name);
      if (value === null) {
        if (header.required) throw new Error(`OpenAPI contract: ${where} has no ${name} header, which the document declares required`);
        continue;
      }
      if (header.schema?.type === 'integer' && !/^\d+$/.test(value)) throw new Error(`OpenAPI contract: ${where}: ${name}: ${value} is not an integer`);
      if (header.schema?.enum && !header.schema.enum.includes(value))
        throw new Error(`OpenAPI contract: ${where}: ${name}: ${value} is not one of ${header.schema.enum.join(', ')}`);
    }
  }
}
