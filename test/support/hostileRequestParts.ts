/**
 * Hostile parts of an HTTP request for the property suites: path segments, query strings and
 * header values, as the bytes a client could put on the wire (percent-encoded or raw UTF-8,
 * invalid escapes included). Values that must name live test data (a key, a blog id) are
 * templates with references, resolved when the request is sent, because the data they name may
 * be deleted and re-created by earlier runs of the same property.
 */
import fc from 'fast-check';
import { bigString, nastyString } from './hostileArbitraries.js';

/** A reference to a fixture of the suite (`{ ref: 'blogId' }`), resolved at send time. */
export interface Ref {
  ref: string;
}
/** Text with references in it, e.g. `['Bearer ', { ref: 'accountKey' }]`. */
export type Template = (string | Ref)[];

export function resolveTemplate(template: Template, fixtures: Readonly<Record<string, string>>): string {
  return template
    .map((part) => {
      if (typeof part === 'string') return part;
      const value = fixtures[part.ref];
      if (value === undefined) throw new Error(`the suite has no fixture "${part.ref}"`);
      return value;
    })
    .join('');
}

/** The references a template names. */
export const refsOf = (template: Template): string[] => template.flatMap((part) => (typeof part === 'string' ? [] : [part.ref]));

/** Every byte of the UTF-8 form percent-encoded (lone surrogates become U+FFFD, as on the wire). */
export const percentEncodeAll = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

const percentGarbage = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.constantFrom('%', '%G', '%1', '%%', '%u0041', '%2', 'a'),
    ),
    { minLength: 1, maxLength: 10 },
  )
  .map((parts) => parts.join(''));

/**
 * One path segment as sent: traversal, invalid or overlong escapes, raw and encoded Unicode,
 * NUL, separators, prototype names, very long (20,000 characters is past Node's 16 KB header
 * limit: the answer is then the HTTP layer's 431).
 */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    // biome-ignore format: a packed list of cases, one per value.
    arbitrary: fc.constantFrom(
      '..', '.', '...', '%2e%2e', '%2E%2E%2F..', '..%2F..%2Fetc%2Fpasswd', '..%5C..%5Cwindows', '%', '%zz', '%E0%A4%A', '%C0%AF',
      '%ED%A0%80', '%FF%FE', '%00', 'a%00b', '%0A', '%0D%0Ax-injected:%201', '__proto__', 'constructor', 'prototype', 'hasOwnProperty',
      'a%2Fb', 'a/b', '', '%20', '+', '~', '%3Cscript%3Ealert(1)%3C%2Fscript%3E', "'", '%22', 'null', 'undefined', 'NaN', '-1', '0',
      '1e309', '00000000-0000-0000-0000-000000000000', 'page', 'rss.xml', 'index.html', '_search', '.meta', '%EC%95%88%EB%85%95',
      '안녕', '🙂', 'A', 'UPPER', 'a;b', 'a,b', '*', '$', '@', ':', 'a:b', '\\', '%5C',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(percentEncodeAll) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }) },
  { weight: 1, arbitrary: percentGarbage },
  { weight: 1, arbitrary: fc.constantFrom(256, 1_000, 6_000, 20_000).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom('%41'.repeat(2_000), '%EC%95%88'.repeat(500), '../'.repeat(300)) },
);

/** Query values: JavaScript number syntax past the safe integers, blanks, escapes, huge. */
const hostileQueryValue = (known: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      // biome-ignore format: a packed list of cases, one per value.
      arbitrary: fc.constantFrom(
        'Infinity', '-Infinity', '1e309', '-1e309', '-0', '0', '1', '2', '20', '50', '51', '100', '101', '1000001', '9007199254740991',
        '9007199254740992', '9007199254740993', '99999999999999999999999', '1.5', '1.0', '0x10', '0b1', '0o7', '1_000', '%201', '1%20',
        '%2B1', '-1', 'NaN', 'true', 'null', 'undefined', '[]', '{}', '%5B%5D', '', '%', '%zz', '%E0%A4%A', '%00', '%EF%BC%91',
      ),
    },
    ...(known.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...known) }] : []),
    { weight: 2, arbitrary: fc.oneof(nastyString, fc.string({ unit: 'grapheme', maxLength: 30 })).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(101), 'x'.repeat(3_000), 'x'.repeat(12_000)) },
  );

/**
 * A whole query string (with its `?`, or empty): known keys of the route, the same keys repeated
 * or as arrays (`page[]=`), unknown keys, prototype names, keys without values, empty pairs.
 */
export function hostileQuery(knownKeys: readonly string[], knownValues: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    ...(knownKeys.length > 0
      ? [
          { weight: 5, arbitrary: fc.constantFrom(...knownKeys) },
          { weight: 1, arbitrary: fc.constantFrom(...knownKeys).map((k) => `${k}[]`) },
          { weight: 1, arbitrary: fc.constantFrom(...knownKeys).map((k) => `${k}[0]`) },
        ]
      : []),
    {
      weight: 2,
      // biome-ignore format: a packed list of cases, one per value.
      arbitrary: fc.constantFrom(
        '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__proto__[polluted]', 'a[]', 'a[b]', 'a.b', '', '%', '%zz', 'q%00',
        '%5F%5Fproto%5F%5F',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) },
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(key, hostileQueryValue(knownValues)).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: key },
    { weight: 1, arbitrary: hostileQueryValue(knownValues).map((v) => `=${v}`) },
    { weight: 1, arbitrary: fc.constantFrom('', '&', '==', 'a==b', ';') },
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant('?') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join('&')}`) },
  );
}

/** Printable ASCII without CR/LF: what a client can put in a header value. */
export const printable = fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

/**
 * Header values that are hostile without naming any fixture: control characters (the parser
 * refuses them), raw UTF-8, very long (16 KB and more is the HTTP layer's 431).
 */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: printable },
  { weight: 2, arbitrary: nastyString.filter((s) => !/[\r\n]/.test(s)) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[\r\n]/.test(s)) },
  { weight: 1, arbitrary: fc.constantFrom('\u0001', 'a\u0000b', '\u007f', '\t', ' ', 'a\tb') },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(1_000), 'x'.repeat(8_000), 'x'.repeat(20_000)) },
  { weight: 1, arbitrary: bigString.filter((s) => s.length < 4_000) },
);

/** Content-Type values: JSON spelt every way, charsets, other media types, garbage. */
export const hostileContentType: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    // biome-ignore format: a packed list of cases, one per value.
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset=utf-16', 'application/json; charset=latin1',
      'application/json; charset=x-unknown', 'application/json; charset="utf-8"', 'APPLICATION/JSON', 'application/json;;;', 'application/json; boundary=x',
      'application/vnd.api+json', 'application/merge-patch+json', 'application/json-patch+json', 'text/json', 'text/plain', 'text/html',
      'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=----x', 'application/octet-stream', '*/*',
      'application/*', '', ';', 'json', 'application/json, text/plain',
    ),
  },
  { weight: 1, arbitrary: hostileHeaderValue },
);

/** X-Request-Id: valid ones are echoed, anything else must be replaced, never reflected. */
export const hostileRequestId: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[\w.-]{1,128}$/),
  fc.constantFrom('x'.repeat(129), 'a b', 'a\tb', '<script>', '../../', '%0d%0aSet-Cookie: a=b', 'id"quoted"', 'ü', ''),
  hostileHeaderValue,
);
