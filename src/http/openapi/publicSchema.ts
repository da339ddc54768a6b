/**
 * A route's JSON Schema as readers outside the server take it (the OpenAPI document, the MCP
 * server's tool schemas): our annotation keywords go (`x-hint`;
 * `maxBytes` becomes `x-max-bytes`), and `x-public-pattern` replaces a `pattern` that other
 * languages' validators cannot compile (slugs.ts). With `answer`, it describes a success body as the server
 * sends it: every object property is required unless the schema lists it in `x-optional` (fields
 * only some answers carry) or declares `required` itself, so generated clients type answers
 * without `| undefined` everywhere; the contract check of the integration suite
 * (test/support/openApiContract.ts) keeps this true.
 */
export function publicSchema(schema: unknown, answer = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => publicSchema(item, answer));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-hint' || key === 'x-optional' || key === 'x-public-pattern') continue;
    if (key === 'maxBytes') {
      out['x-max-bytes'] = value;
      continue;
    }
    out[key] = publicSchema(value, answer);
  }
  const portable = (schema as { 'x-public-pattern'?: string })['x-public-pattern'];
  if (portable !== undefined) out.pattern = portable;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (answer && properties && !('required' in schema)) {
    const optional = new Set((schema as { 'x-optional'?: string[] })['x-optional'] ?? []);
    out.required = Object.keys(properties).filter((name) => !optional.has(name));
  }
  return out;
}
