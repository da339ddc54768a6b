/**
 * Hostile inputs shared by the property suites (test/integration/*.property.test.ts): strings,
 * JSON values serialised by hand so that duplicate and `__proto__` keys reach the server, bodies
 * around an endpoint's fields, and the run count every property uses.
 */
import fc from 'fast-check';

/** Runs of a property: its default, or HOSTILE_RUNS (e.g. HOSTILE_RUNS=2000 for a deeper local search). */
export function hostileRuns(defaultRuns: number): number {
  const override = Number(process.env.HOSTILE_RUNS);
  return Number.isInteger(override) && override > 0 ? override : defaultRuns;
}

/**
 * A test timeout for a property of `runs` requests: vitest's 20 s default, or more for a deep
 * HOSTILE_RUNS search. A property cut off by the timeout would go on running beside the next
 * test, and its writes would be taken for the next test's.
 */
export function hostileTimeout(runs: number, msPerRun = 100): number {
  return Math.max(20_000, runs * msPerRun * 2);
}

/** Sentence text of about n characters (long runs without punctuation are reported separately). */
export const prose = (n: number): string => 'Lorem ipsum dolor sit amet. '.repeat(Math.ceil(n / 28)).slice(0, n);

export const nastyString = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\u202e\u0644',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "'; DROP TABLE posts; --",
  '" OR 1=1 --',
  '../../etc/passwd',
  '%00',
  '%E0%A4%A',
  'javascript:alert(1)',
  'https://example.com/a.png',
  'page',
  'rss.xml',
  'tags',
  '안녕 세상',
  '안녕-세상',
  '🙂🙂',
  'a\u0301',
  'NaN',
  'null',
  'true',
  '-1',
  'UPPER',
  'valid-slug',
  'blog.example.com',
  'Blog.Example.com',
  'x.localhost',
  '*',
  'posts:read',
  'posts:write',
  'keys:manage',
  '2031-01-01T00:00:00Z',
);

export const bigString = fc.constantFrom(
  'x'.repeat(51),
  'x'.repeat(64),
  'x'.repeat(101),
  'x'.repeat(201),
  'x'.repeat(1001),
  'y'.repeat(3000),
  prose(50_000),
  prose(1024 * 1024),
  prose(1024 * 1024 + 1),
);

export const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: bigString },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,3}$/) },
);

export const leaf = fc.oneof(
  { weight: 5, arbitrary: anyString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53, -0, 1e308, 0.1) },
);

export const pollutionKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '');

/** [key, value] entries; serialised by hand so duplicate and `__proto__` keys survive. */
export type Entries = [string, unknown][];
export const RAW = Symbol('raw JSON text');
export type Raw = { [RAW]: string };

export function serialise(value: unknown): string {
  if (value && typeof value === 'object' && RAW in value) return (value as Raw)[RAW];
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`;
  if (value && typeof value === 'object') return serialise(objectOf(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}
export function objectOf(entries: Entries): Raw {
  return { [RAW]: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${serialise(v)}`).join(',')}}` };
}

export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'json' },
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 12 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(pollutionKey, fc.string({ maxLength: 10 })), tie('value')), { maxLength: 5 })
        .map((entries) => objectOf(entries as Entries)),
    },
  ),
})).value;

/** Polluting payloads that would show up on Object.prototype if anything merged them naively. */
export const pollution = fc.constantFrom<Raw>(
  objectOf([['__proto__', objectOf([['polluted', 'yes']])]]),
  objectOf([['constructor', objectOf([['prototype', objectOf([['polluted', 'yes']])]])]]),
  objectOf([['__proto__', objectOf([['customCss', 'x']])]]),
  // Objects whose valueOf/toString are not functions break naive deep-equal and string coercion.
  objectOf([['valueOf', 1]]),
  objectOf([
    ['toString', 'x'],
    ['valueOf', null],
  ]),
);

/** A body built around the endpoint's own fields, with hostile values and extra keys. */
export function fieldsBody(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Raw> {
  const known = Object.entries(fields).map(([key, valid]) =>
    fc.option(fc.tuple(fc.constant(key), fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: jsonValue }, { weight: 1, arbitrary: pollution })), {
      nil: undefined,
      freq: 3,
    }),
  );
  const extras = fc.array(fc.tuple(fc.oneof(pollutionKey, fc.string({ maxLength: 12 })), fc.oneof(jsonValue, pollution)), { maxLength: 2 });
  return fc
    .tuple(fc.tuple(...known), fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extras }))
    .map(([picked, extra]) => objectOf([...(picked.filter((e) => e !== undefined) as Entries), ...(extra as Entries)]));
}

/**
 * A whole request body: well-typed bodies with hostile values (so that many requests succeed and
 * reach the database), endpoint-shaped bodies with hostile types, anything at all, or not JSON.
 */
export function bodyFor(fields: Record<string, fc.Arbitrary<unknown>>, wellTyped: fc.Arbitrary<unknown>): fc.Arbitrary<{ raw: string; type: string }> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: wellTyped.map(serialise) },
        { weight: 6, arbitrary: fieldsBody(fields).map(serialise) },
        { weight: 2, arbitrary: jsonValue.map(serialise) },
        { weight: 1, arbitrary: pollution.map(serialise) },
        { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', '[1,', 'undefined', '{"__proto__":', '\u0000', '') },
      ),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'application/xml') },
      ),
    )
    .map(([raw, type]) => ({ raw, type }));
}

/** Strings of the right type that are often, but not always, acceptable. */
export const text = (max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 60) }) },
    { weight: 2, arbitrary: nastyString },
    { weight: 1, arbitrary: bigString },
  );
export const slugText = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z0-9가-힣]{1,12}(-[a-z0-9]{1,8}){0,3}$/) },
  { weight: 2, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);
export const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
export const defined = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));

// ---------------------------------------------------------------------------------------------
// Bodies derived from a JSON Schema (the request schemas of GET /v1/openapi.json), so that a new
// route is fuzzed with its own fields without anyone writing arbitraries for it.

export interface SchemaLike {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, SchemaLike>;
  required?: string[];
  items?: SchemaLike;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  description?: string;
}

/** Strings that match `pattern` (often acceptable) next to ones that do not. */
function stringFor(schema: SchemaLike): fc.Arbitrary<string> {
  const max = schema.maxLength ?? 200;
  const boundary = fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), '');
  const dates = fc.oneof(
    fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom(
      '2031-01-01T00:00:00Z',
      '2031-01-01T00:00:00+09:00',
      '2030-02-30T10:00:00Z',
      '2031-01-01T24:00:00Z',
      '2031-01-01',
      'tomorrow',
      '+275760-09-13T00:00:00.000Z',
    ),
  );
  const matching = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'small' }).filter((s) => s.length <= max) : text(max);
  return fc.oneof(
    { weight: 4, arbitrary: /ISO 8601/.test(schema.description ?? '') ? dates : matching },
    { weight: 2, arbitrary: text(max) },
    { weight: 1, arbitrary: boundary },
  );
}

function validFor(schema: SchemaLike, depth: number, sane: boolean): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const arbitraries = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return stringFor(schema);
      case 'integer':
        return fc.integer({ min: (schema.minimum ?? -5) - 2, max: Math.min(schema.maximum ?? 200, 2 ** 31) + 2 });
      case 'number':
        return fc.double({ min: (schema.minimum ?? -5) - 2, max: (schema.maximum ?? 200) + 2, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(valueForSchema(schema.items ?? {}, depth + 1, sane), { maxLength: (schema.maxItems ?? 4) + (sane ? 0 : 2) });
      case 'object':
        return depth > 3 ? jsonValue : objectForSchema(schema, depth + 1, sane);
      default:
        return jsonValue;
    }
  });
  return arbitraries.length === 0 ? jsonValue : fc.oneof(...arbitraries);
}

/**
 * A value for the schema: mostly of the right shape with hostile contents, sometimes anything.
 * `sane` keeps to the right shape (values may still break a limit or a pattern).
 */
export function valueForSchema(schema: SchemaLike, depth = 0, sane = false): fc.Arbitrary<unknown> {
  if (sane) return validFor(schema, depth, true);
  return fc.oneof({ weight: 5, arbitrary: validFor(schema, depth, false) }, { weight: 1, arbitrary: jsonValue }, { weight: 1, arbitrary: pollution });
}

/**
 * Values a schema cannot say are likely to be accepted (a hostname, a future time), by property
 * name, mixed in with what the schema gives.
 */
export type FieldHints = Readonly<Record<string, fc.Arbitrary<unknown>>>;

/**
 * An object with the schema's properties (required ones usually present) and sometimes extra
 * keys; `sane`: required ones always, values of the right shape, no extra keys.
 */
export function objectForSchema(schema: SchemaLike, depth = 0, sane = false, hints: FieldHints = {}): fc.Arbitrary<Raw> {
  const required = new Set(schema.required ?? []);
  const known = Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const value = valueForSchema(property, depth, sane);
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    const entry = fc.tuple(fc.constant(key), hint ? fc.oneof(hint, value) : value);
    return sane && required.has(key) ? entry : fc.option(entry, { nil: undefined, freq: required.has(key) ? 12 : 2 });
  });
  const extras = fc.array(fc.tuple(fc.oneof(pollutionKey, fc.string({ maxLength: 12 })), fc.oneof(jsonValue, pollution)), { minLength: 1, maxLength: 2 });
  return fc
    .tuple(fc.tuple(...known), sane ? fc.constant([]) : fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extras }))
    .map(([picked, extra]) => objectOf([...(picked.filter((e) => e !== undefined) as Entries), ...(extra as Entries)]));
}

// ---------------------------------------------------------------------------------------------
// Request bodies as bytes: JSON of every shape, deep nesting within the 2 MB limit, not JSON at all.

/** Nesting far deeper than any schema, all within the 2 MB limit: nothing may recurse on it unbounded. */
export const deepNesting = fc.tuple(fc.constantFrom(64, 1_000, 100_000, 300_000), fc.constantFrom('array', 'object', 'field')).map(([depth, shape]) => {
  const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (shape === 'array') return arrays;
  if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `{"title":${arrays},"name":"x"}`;
});

/** Just over the 2 MB body limit, and exactly at it (a JSON string of 2 MB). */
const nearLimit = fc.constantFrom(`"${'x'.repeat(2 * 1024 * 1024 - 2)}"`, `"${'x'.repeat(2 * 1024 * 1024 - 1)}"`);

/**
 * A request body or none (undefined). `schema` is the route's request body schema, when it has
 * one; bodies of its shape then come most often.
 */
export function hostileBody(schema: SchemaLike | undefined, hints: FieldHints = {}): fc.Arbitrary<Buffer | undefined> {
  const text = (arb: fc.Arbitrary<string>) => arb.map((s) => Buffer.from(s, 'utf8'));
  const others: fc.WeightedArbitrary<Buffer | undefined>[] = [
    { weight: schema ? 1 : 10, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
    { weight: 2, arbitrary: text(jsonValue.map(serialise)) },
    { weight: 1, arbitrary: text(pollution.map(serialise)) },
    {
      weight: 1,
      arbitrary: text(
        fc.constantFrom(
          '{}',
          '[]',
          '[{}]',
          '[1,2]',
          'null',
          '0',
          '"x"',
          'true',
          '{',
          '{"a":}',
          '[1,',
          'undefined',
          '{"__proto__":',
          '\u0000',
          '\ufeff{}',
          '{}garbage',
          '{"a":1}{"b":2}',
        ),
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: text(deepNesting) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 9 }).chain((n) => (n === 0 ? text(nearLimit) : fc.constant(Buffer.from('{}')))) },
  ];
  if (schema) others.push({ weight: 10, arbitrary: text(objectForSchema(schema, 0, false, hints).map(serialise)) });
  return fc.oneof(...others);
}
