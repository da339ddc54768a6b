/** Every `pattern` string in a JSON document (an OpenAPI document, a tool's input schema), in document order. */
export function patternsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) patternsIn(item, found);
  else if (node && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) key === 'pattern' && typeof value === 'string' ? found.push(value) : patternsIn(value, found);
  return found;
}
