import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

/**
 * What the HTTP fuzzer sends: bodies, headers, paths and raw malformed messages, built to reach the
 * inputs that once answered 500 and their neighbours.
 */

// Strings a client can put in JSON that a database, a log line or a parser may choke on.
const NASTY = [
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d',
  '\ufeff',
  '\u202e',
  '\u2028',
  '\\',
  '"',
  "'; DROP TABLE jobs; --",
  '%00',
  '${x}',
  '{{x}}',
  '\r\n',
  'ℌ',
  '🦷',
  'e\u0301',
];

export const nastyString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...NASTY),
  fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY), fc.string({ maxLength: 8 })).map((parts) => parts.join('')),
  fc.integer({ min: 190, max: 320 }).map((n) => 'x'.repeat(n)),
);

/** A JSON number's text, including those JavaScript cannot hold exactly or at all. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(
    '1e999',
    '-1e999',
    '-0',
    '0.0',
    '1.0',
    '10.5',
    '123456789012345678901234567890',
    '9007199254740993',
    '1e-400',
    '100',
    '101',
    '0',
    '25',
  ),
);

/** A JSON tree whose objects are entry lists, so keys like __proto__ survive into the text. */
export type Tree = { leaf: string } | Tree[] | { entries: Array<[string, Tree]> };

const FIELDS = [
  'source',
  'category',
  'state',
  'city',
  'keyword',
  'maxResults',
  'linkedinParams',
  'decisionMakerTitles',
  'requiredChannels',
  'title',
  'seniority',
  'industry',
  'companySize',
  'country',
];
export const key = fc.oneof(
  fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', ''),
  nastyString,
);

const leaf = fc.oneof(
  nastyString.map((s) => ({ leaf: JSON.stringify(s) })),
  numberText.map((n) => ({ leaf: n })),
  fc.constantFrom('true', 'false', 'null').map((l) => ({ leaf: l })),
  fc
    .constantFrom(
      'google_maps',
      'linkedin',
      'shopify',
      'US',
      'de',
      'Germany',
      'ZZ',
      'email',
      'phone',
      'owner',
      '11-50',
      'sandbox:empty',
      'sandbox:fail',
      'sandbox:only=3',
      'sandbox:fail_after=5',
      'sandbox:delay=20',
      'sandbox:bogus',
    )
    .map((s) => ({ leaf: JSON.stringify(s) })),
);

export const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('tree')), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
})).tree;

export function toJsonText(node: Tree): string {
  if (Array.isArray(node)) return `[${node.map(toJsonText).join(',')}]`;
  if ('leaf' in node) return node.leaf;
  return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
}

const VALID: Array<[string, Tree]> = [
  ['category', { leaf: '"dentist"' }],
  ['state', { leaf: '"US"' }],
  ['maxResults', { leaf: '3' }],
];

/** A generation request: a valid one with some fields overridden or added, or any JSON at all. */
export const generateBodyText = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.tuple(key, tree), { maxLength: 4 }).map((extra) => toJsonText({ entries: [...VALID, ...extra] })) },
  { weight: 2, arbitrary: tree.map(toJsonText) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer({ min: 1, max: 9000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
      fc
        .integer({ min: 1, max: 2500 })
        .map((n) => `{"category":"x","state":"US","city":${'['.repeat(n)}${'"\\u0000",'.repeat(60)}"\\ud800"${']'.repeat(n)}}`),
      fc.integer({ min: 1, max: 3000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
      fc
        .integer({ min: 1, max: 2000 })
        .map((n) => `{"category":"dentist","state":"US","linkedinParams":${'{"__proto__":'.repeat(n)}{}${'}'.repeat(n)}}`),
      fc.constantFrom(
        '',
        ' ',
        'null',
        '[]',
        '"x"',
        '{',
        '{"category":',
        '\ufeff{"category":"dentist","state":"US"}',
        '{"category":"dentist","state":"US","maxResults":1e999}',
        '{"category":"dentist","category":"x","state":"US"}',
      ),
      fc.integer({ min: 16_000, max: 40_000 }).map((n) => JSON.stringify({ category: 'x'.repeat(n), state: 'US' })),
      fc.string({ unit: 'binary', maxLength: 200 }),
    ),
  },
);

/** Any bytes a body may be: text as UTF-8, or bytes that are not UTF-8 at all. */
export const bodyBytes = fc.oneof(
  { weight: 9, arbitrary: generateBodyText.map((text) => Buffer.from(text, 'utf8')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
);

// Header values Node's client will send: no CR, LF or NUL (those are the raw-socket property's).
const headerText = fc
  .string({ unit: 'binary', maxLength: 40 })
  .map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, ''))
  .filter((s) => !/wait/i.test(s));

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

export const contentType = optional(
  fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'application/problem+json',
        'application/merge-patch+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
        ';;',
        'application/json; charset="',
        'application/json;;;charset=utf-8',
      ),
    },
    { weight: 1, arbitrary: headerText },
  ),
);

export type Encoding = { header: string | undefined; compress: boolean };
export const contentEncoding: fc.Arbitrary<Encoding> = fc.record({
  header: optional(
    fc.oneof(
      fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'zstd', 'GZIP', 'x-gzip', 'gzip, identity', 'identity, gzip', '', 'compress'),
      headerText,
    ),
  ),
  compress: fc.boolean(),
});

export function encodeBody(body: Buffer, encoding: Encoding): Buffer {
  if (!encoding.compress) return body;
  switch (encoding.header?.trim().toLowerCase()) {
    case 'gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'br':
      return brotliCompressSync(body);
    default:
      return body;
  }
}

export const idempotencyKey = optional(
  fc.oneof(
    { weight: 5, arbitrary: fc.uuid() },
    {
      weight: 2,
      arbitrary: fc.constantFrom('', '""', '"', '"a"', 'a'.repeat(255), 'a'.repeat(256), `"${'a'.repeat(255)}"`, ' k ', 'key\u00ff', 'k\t'),
    },
    { weight: 2, arbitrary: headerText },
  ),
);

// Waits stay at 1 s at most, so the 2 s bound measures the service, not the wait a client asked for.
export const prefer = optional(
  fc.oneof(
    fc.constantFrom(
      'respond-async',
      'wait=0',
      'wait=1',
      'wait="1"',
      'wait=-1',
      'wait=1.5',
      'respond-async, wait=1',
      'handling=lenient, wait=0',
      'wait',
    ),
    headerText,
  ),
);

export const requestIdHeader = optional(fc.oneof(fc.constantFrom('abc', 'x'.repeat(129), 'a b', 'req_1;DROP'), headerText));

export type Credential =
  | { kind: 'valid' }
  | { kind: 'other-account' }
  | { kind: 'revoked' }
  | { kind: 'none' }
  | { kind: 'header'; value: string }
  | { kind: 'operator' }
  | { kind: 'basic'; user: string; password: string };

export const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'valid' as const }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Credential>({ kind: 'other-account' }, { kind: 'revoked' }, { kind: 'none' }, { kind: 'operator' }),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'bearer lg_live_x',
          'Basic',
          'Basic !!!',
          'Bearer lg_live_' + 'a'.repeat(5000),
          'Bearer a b',
          'Digest x',
        ),
        headerText.map((t) => `Bearer ${t}`),
        headerText,
      )
      .map((value) => ({ kind: 'header' as const, value })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('basic' as const),
      user: fc.oneof(fc.constant('operator'), fc.string({ maxLength: 10 })),
      password: fc.string({ maxLength: 12 }),
    }),
  },
);

const percentGarbage = fc
  .array(
    fc.oneof(
      fc.constantFrom('%', '%f', '%ff', '%zz', '%00', '%2F', '%2e%2e', '%C0%AF', '%E0%A4%A', '%ED%A0%80', '%uD800', '%25', '..', '/'),
      fc.stringMatching(/^[a-z0-9_]{0,5}$/),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(''));

// Every byte of the string's UTF-8 (a lone surrogate becomes U+FFFD's), where encodeURIComponent would throw.
const percentEncoded = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

// Characters Node's client lets into a path: 0x21..0xff.
const pathText = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => s.replace(/[^\x21-\xff]/g, ''));

export function jobPath(realIds: string[]): fc.Arbitrary<string> {
  const id = fc.oneof(
    fc.constantFrom(...realIds, `job_${'0'.repeat(24)}`, '', 'null', 'undefined', '__proto__', 'constructor'),
    percentGarbage,
    fc.integer({ min: 100, max: 20_000 }).map((n) => `job_${'a'.repeat(n)}`),
    pathText,
    nastyString.map(percentEncoded),
  );
  return id.map((jobId) => `/api/v1/leads/jobs/${jobId}`);
}

export function anyPath(realIds: string[]): fc.Arbitrary<string> {
  const base = fc.oneof(
    { weight: 3, arbitrary: jobPath(realIds) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '/api/v1/leads/generate',
        '/api/v1/account',
        '/api/v1/meta/tariffs',
        '/api/v1/meta/linkedin-countries',
        '/healthz',
        '/readyz',
        '/',
        '/api/v1',
        '/api/v1/leads/jobs',
        '/api/v1/leads/jobs/',
        '//api/v1/account',
        '/API/V1/ACCOUNT',
        '/admin/queues',
        '/admin/queues/api/queues',
        '/admin/queues/api/queues/google_maps/pause',
        '/admin/queues/static/../../package.json',
        '/admin/queues/api/queues/%ff',
      ),
    },
    { weight: 1, arbitrary: percentGarbage.map((g) => `/api/v1/${g}`) },
    { weight: 1, arbitrary: pathText.map((p) => `/${p}`) },
  );
  const query = optional(
    fc.oneof(
      fc.constantFrom('?', '?a=1&a=2', '?__proto__[x]=1', '?%ff', '?q=' + 'x'.repeat(3000)),
      pathText.map((p) => `?${p}`),
    ),
  );
  return fc.tuple(base, query).map(([p, q]) => `${p}${q ?? ''}`);
}

// A cursor key out of what the SQL accepts, or just odd: beyond int4, past the years timestamptz and
// Date share, NUL and lone surrogates in text, the wrong type.
const cursorKey = fc.oneof(
  fc.constantFrom(
    2 ** 31,
    -(2 ** 31) - 1,
    -1,
    1.5,
    1e300,
    Number.MAX_SAFE_INTEGER,
    '+275760-09-13T00:00:00.000Z',
    '-271821-04-20T00:00:00.000Z',
    '+010000-01-01T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '2026-11-22T14:00:00.000Z',
    '2026-02-30T25:61:00Z',
    'a\u0000b',
    '\u0000',
    '\ud800',
    '',
    null,
    true,
  ),
  fc.integer(),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  nastyString,
  fc.integer({ min: 400, max: 5000 }).map((n) => 'x'.repeat(n)),
  fc.constant({}),
  fc.constant([]),
);

// Each listing's cursor kind, as paging.ts writes it, so the tampered keys get past the kind check.
const CURSOR_KINDS = ['j', 'l', 'p', 'a', 'webhook-deliveries', 'domain', 'email', 'phone', 'other'];

/** A listing's query with a cursor that decodes to a JSON array of tampered keys (or to garbage). */
export const tamperedCursor = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...CURSOR_KINDS), fc.array(cursorKey, { maxLength: 4 })).map(([kind, keys]) => [kind, ...keys]),
    },
    { weight: 1, arbitrary: fc.jsonValue() },
  )
  .map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url'));

/** GETs of listings that take a cursor, and requests whose path ids reach SQL: NUL bytes, escapes, oversize text. */
export function listingRequest(realIds: string[]): fc.Arbitrary<{ method: string; path: string }> {
  const id = fc.oneof(
    fc.constantFrom('a%00b', '%00', `whep_${'0'.repeat(24)}`, `msg_${'0'.repeat(32)}`, `job_${'0'.repeat(24)}`, ...realIds),
    nastyString.map(percentEncoded),
    pathText,
  );
  const listing = fc.oneof(
    fc.constantFrom('/api/v1/leads/jobs', '/api/v1/leads', '/api/v1/audit-events', '/api/v1/suppressions'),
    fc.constantFrom(...realIds).map((i) => `/api/v1/leads/jobs/${i}/leads`),
    id.map((i) => `/api/v1/leads/jobs/${i}/leads`),
    id.map((i) => `/api/v1/leads/result-sets/${i}`),
    id.map((i) => `/api/v1/webhooks/${i}/deliveries`),
  );
  const withId: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(
      fc.constantFrom('GET', 'PATCH', 'DELETE'),
      id.map((i) => `/api/v1/webhooks/${i}`),
    ),
    fc.tuple(
      fc.constant('POST'),
      id.map((i) => `/api/v1/webhooks/${i}/test`),
    ),
    fc.tuple(
      fc.constant('POST'),
      id.map((i) => `/api/v1/webhooks/${i}/rotate-secret`),
    ),
    fc.tuple(
      fc.constant('POST'),
      fc.tuple(id, id).map(([e, d]) => `/api/v1/webhooks/${e}/deliveries/${d}/retry`),
    ),
    fc.tuple(
      fc.constant('GET'),
      id.map((i) => `/api/v1/leads/jobs/${i}/webhook-deliveries`),
    ),
    fc.tuple(
      fc.constant('POST'),
      fc.tuple(id, id).map(([j, d]) => `/api/v1/leads/jobs/${j}/webhook-deliveries/${d}/retry`),
    ),
    fc.tuple(
      fc.constantFrom('GET', 'DELETE'),
      id.map((i) => `/api/v1/leads/jobs/${i}`),
    ),
  );
  const times = fc.constantFrom('0000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00+23:59', '2026-11-22T14:00:00Z');
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(listing, tamperedCursor).map(([path, cursor]) => ({ method: 'GET', path: `${path}?cursor=${cursor}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(listing, times)
        .map(([path, time]) => ({ method: 'GET', path: `${path}?createdAfter=${encodeURIComponent(time)}` })),
    },
    { weight: 2, arbitrary: withId.map(([method, path]) => ({ method, path })) },
  );
}

export const method = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD');

/** Whole HTTP messages as bytes, malformed in the ways the parser must refuse. */
const head = 'POST /api/v1/leads/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
export const malformedMessage: fc.Arbitrary<Buffer> = fc
  .oneof(
    // Chunk sizes that are not hex (a valid size larger than the data would rightly be waited for).
    fc
      .stringMatching(/^[0-9a-f]{0,3}[g-zG-Z =-][0-9a-zG-Z =-]{0,4}$/)
      .map((size) => `${head}Transfer-Encoding: chunked\r\n\r\n${size}\r\n{}\r\n0\r\n\r\n`),
    fc.nat(100).map((n) => `${head}Content-Length: ${n}\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`),
    fc
      .constantFrom('-1', '1e3', '0x10', '99999999999999999999', ' ', '2, 3', '+2')
      .map((cl) => `${head}Content-Length: ${cl}\r\nConnection: close\r\n\r\n{}`),
    fc.constant(`${head}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`),
    fc
      .constantFrom('chunked, gzip', 'gzip', 'identity', 'chunked, chunked', 'xchunked')
      .map((te) => `${head}Transfer-Encoding: ${te}\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`),
    fc
      .integer({ min: 0, max: 31 })
      .filter((b) => b !== 9)
      .map((b) => `${head}X-A: a${String.fromCharCode(b)}b\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`),
    fc
      .integer({ min: 0, max: 31 })
      .filter((b) => b !== 9)
      .map((b) => `${head}Idempotency-Key: k${String.fromCharCode(b)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`),
    fc
      .constantFrom('X Y', '(x)', 'x\u007f', ' x', 'x\u00ff', '')
      .map((name) => `${head}${name}: v\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`),
    fc.integer({ min: 17_000, max: 70_000 }).map((n) => `${head}X-Big: ${'a'.repeat(n)}\r\n\r\n`),
    fc
      .integer({ min: 200, max: 3000 })
      .map((n) => `${head}Connection: close\r\n${Array.from({ length: n }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`),
    fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'G\u0000T', 'BREW', 'get', 'CONNECT', ''),
        fc.string({ unit: 'binary-ascii', maxLength: 20 }),
        fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', '', 'HTTP/9.9', 'http/1.1'),
      )
      .map(([m, p, v]) => `${m} /${p} ${v}\r\nHost: x\r\nConnection: close\r\n\r\n`),
    fc.constant(`${head}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Trailer: a\u0001\r\n\r\n`),
    fc.constant(`${head} folded: continuation\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`),
    fc.constantFrom('GET /healthz HTTP/1.1\r\n\r\n', 'POST /api/v1/leads/generate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}'),
    fc
      .constantFrom('foo', '100-continue-not', '', '200-ok')
      .map((e) => `${head}Expect: ${e}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
    fc.constant('POST /api/v1/leads/generate HTTP/1.1\nHost: x\nContent-Length: 0\n\n'),
    fc.constant(`${head}Transfer-Encoding: chunked\r\n\r\n${'f'.repeat(20)}\r\n`),
    fc.constant(`${head}Transfer-Encoding: chunked\r\n\r\n2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`),
  )
  .map((text) => Buffer.from(text, 'latin1'));

/** Random bytes ended as a header block, so the parser has something to judge. */
export const randomMessage = fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')]));
