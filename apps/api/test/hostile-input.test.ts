import { gzipSync } from 'node:zlib';
import { idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { rawRequest, rawSocket, type RawAnswer } from '../../../test/raw-http';

// Each input here once answered 500 or slipped past validation; each now has a 4xx of its own.
let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld({ worker: false });
  account = await buildAccount(world.db, { credits: 10_000 });
});
afterAll(() => world.close());

const GENERATE = '/api/v1/leads/generate';
const valid = { category: 'dentist', state: 'US', maxResults: 1 };

function expectProblem(res: RawAnswer, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
}

function post(body: string | Buffer, headers: Record<string, string> = {}) {
  return rawRequest(world.api.port, {
    method: 'POST',
    path: GENERATE,
    headers: {
      ...account.auth,
      'Idempotency-Key': idempotencyKey(),
      'Content-Type': 'application/json',
      Prefer: 'respond-async',
      ...headers,
    },
    body,
  });
}

const pointers = (res: RawAnswer) => (res.body?.errors as Array<{ pointer: string }>).map((e) => e.pointer);

describe('malformed percent-escapes in paths', () => {
  it.each(['%ff', '%zz', '%', 'job_%E0%A4%A'])('when a job path holds %s, then 400 malformed_path', async (id) => {
    for (const method of ['GET', 'DELETE']) {
      expectProblem(
        await rawRequest(world.api.port, { method, path: `/api/v1/leads/jobs/${id}`, headers: account.auth }),
        400,
        'malformed_path',
      );
    }
  });

  it('when a path outside any route holds %ff, then 404 not_found', async () => {
    expectProblem(await rawRequest(world.api.port, { method: 'GET', path: '/api/v1/%ff', headers: account.auth }), 404, 'not_found');
  });
});

describe('strings PostgreSQL cannot store', () => {
  it('when the category holds a NUL character, then 400 validation_failed pointing at it, and no job', async () => {
    const res = await post(JSON.stringify({ ...valid, category: 'den\u0000tist' }));
    expectProblem(res, 400, 'validation_failed');
    expect(pointers(res)).toEqual(['#/category']);
    expect(await world.db.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('when strings hold unpaired surrogates, at any depth, then 400 validation_failed pointing at each', async () => {
    const body = `{"source":"linkedin","category":"cto","state":"US","city":"\\ud800x","linkedinParams":{"title":["ok","\\udc00"]}}`;
    const res = await post(body);
    expectProblem(res, 400, 'validation_failed');
    expect(pointers(res)).toEqual(['#/city', '#/linkedinParams/title/1']);
  });

  it('when a surrogate pair is well formed, then it is accepted', async () => {
    const res = await post(JSON.stringify({ ...valid, category: 'dentist \ud83e\uddb7' }));
    expect(res.status).toBe(202);
  });

  it('when 32 levels deep hold many NUL strings, then 400 validation_failed in well under a second, naming at most 50', async () => {
    const depth = 30;
    const res = await post(`{"category":"x","state":"US","city":${'['.repeat(depth)}${'"\\u0000",'.repeat(80)}"x"${']'.repeat(depth)}}`);
    expectProblem(res, 400, 'validation_failed');
    expect(res.ms).toBeLessThan(1_000);
    expect(pointers(res).filter((p) => p.startsWith('#/city/0/0/')).length).toBe(50);
  });

  it('when a body nests deeper than 32 levels (thousands, or the 16 KiB of brackets), then 400 validation_failed at # before it is parsed', async () => {
    for (const depth of [33, 2_000, 8_000]) {
      const res = await post(`{"category":"x","state":"US","city":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body?.errors).toEqual([{ pointer: '#', detail: 'the body nests deeper than 32 levels' }]);
      expect(res.ms).toBeLessThan(1_000);
    }
  });

  it('when a field name holds a NUL character, then 400 validation_failed with an escaped pointer', async () => {
    const res = await post('{"category":"dentist","state":"US","x\\u0000":1}');
    expectProblem(res, 400, 'validation_failed');
    expect(pointers(res)).toContain('#/x\\u0000');
  });

  it('when the Idempotency-Key holds bytes outside printable ASCII, then 400 idempotency_key_invalid', async () => {
    expectProblem(await post(JSON.stringify(valid), { 'Idempotency-Key': 'key-\u00ff' }), 400, 'idempotency_key_invalid');
  });

  it('when the Idempotency-Key holds a NUL byte, then the parser refuses it as a malformed request', async () => {
    const bytes = `POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0000b\r\nContent-Length: 0\r\n\r\n`;
    const res = await rawSocket(world.api.port, bytes);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'malformed_request', requestId: res.headers['x-request-id'] });
  });
});

describe('prototype keys', () => {
  it.each([
    ['{"category":"dentist","state":"US","__proto__":{"maxResults":0}}', '#/__proto__'],
    ['{"category":"dentist","state":"US","constructor":{"prototype":{}}}', '#/constructor'],
    ['{"source":"linkedin","category":"cto","state":"US","linkedinParams":{"__proto__":{"x":1}}}', '#/linkedinParams/__proto__'],
    ['{"source":"shopify","category":"shoes","state":"US","decisionMakerTitles":[{"prototype":1}]}', '#/decisionMakerTitles/0/prototype'],
  ])('when the body is %s, then 400 validation_failed pointing at %s', async (body, pointer) => {
    const res = await post(body);
    expectProblem(res, 400, 'validation_failed');
    expect(pointers(res)).toContain(pointer);
  });
});

describe('Content-Encoding', () => {
  it.each(['gzip', 'deflate', 'br', 'zstd', 'x-unknown', 'gzip, identity'])(
    'when the body is sent with Content-Encoding %s, then 415 unsupported_content_encoding with Accept-Encoding: identity',
    async (encoding) => {
      const res = await post(JSON.stringify(valid), { 'Content-Encoding': encoding });
      expectProblem(res, 415, 'unsupported_content_encoding');
      expect(res.headers['accept-encoding']).toBe('identity');
    },
  );

  it('when a gzip bomb is sent, then 415 before a byte of it is inflated', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    const res = await post(bomb, { 'Content-Encoding': 'gzip' });
    expectProblem(res, 415, 'unsupported_content_encoding');
    expect(res.ms).toBeLessThan(2_000);
  });

  it('when Content-Encoding is identity, then the body is read as usual', async () => {
    expect((await post(JSON.stringify(valid), { 'Content-Encoding': 'identity' })).status).toBe(202);
  });
});

describe('malformed HTTP', () => {
  const head = `POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n`;
  it.each([
    ['bad chunking', 400, 'malformed_request', `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    [
      'Content-Length with Transfer-Encoding',
      400,
      'malformed_request',
      `${head}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ],
    ['a control byte in a header', 400, 'malformed_request', `${head}X-Evil: a\u0001b\r\nContent-Length: 0\r\n\r\n`],
    ['a space before the colon', 400, 'malformed_request', `${head}Content-Length : 0\r\n\r\n`],
    ['a bogus request line', 400, 'malformed_request', 'GET /\u0000 HTTP/1.1\r\n\r\n'],
    ['headers over the limit', 431, 'headers_too_large', `${head}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ])(
    'when the request has %s, then %i %s as Problem Details with an X-Request-Id, and the connection closes',
    async (_what, status, code, bytes) => {
      const res = await rawSocket(world.api.port, bytes);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
      expect(res.closed).toBe(true);
    },
  );

  it('when an HTTP/1.1 request has no Host, then 400 malformed_request as Problem Details, and the connection closes', async () => {
    const res = await rawSocket(world.api.port, 'GET /healthz HTTP/1.1\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'malformed_request', requestId: res.headers['x-request-id'] });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.closed).toBe(true);
  });

  it("when an HTTP/1.0 request has no Host, then it is served (Host is HTTP/1.1's rule)", async () => {
    expect((await rawSocket(world.api.port, 'GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('when a request carries an Expect the server cannot meet, then 417 expectation_failed as Problem Details', async () => {
    const res = await rawSocket(
      world.api.port,
      `POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(res.status).toBe(417);
    expect(res.body).toMatchObject({ code: 'expectation_failed', requestId: res.headers['x-request-id'] });
  });

  it('when a request expects 100-continue, then it gets the interim 100 and its answer', async () => {
    const res = await rawSocket(world.api.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    expect(res.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it('when a HEAD request has headers over the limit, then 431 with no body, as HEAD answers have none', async () => {
    const res = await rawSocket(world.api.port, `HEAD /api/v1/leads/jobs/job_${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.raw.endsWith('\r\n\r\n')).toBe(true);
    expect(res.closed).toBe(true);
  });

  it('when the client sends garbage and hangs up at once, then the server stays up', async () => {
    await rawSocket(world.api.port, '\u0016\u0003\u0001\u0002\u0000\u0001\u0000', 200);
    expect((await rawRequest(world.api.port, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });
});

describe('security headers', () => {
  it.each([
    ['GET', '/healthz'],
    ['GET', '/api/v1/meta/tariffs'],
    ['GET', '/nowhere'],
    ['GET', '/api/v1/account'],
  ])('when %s %s is answered, then nosniff, a CSP, frame protection and no X-Powered-By', async (method, path) => {
    const res = await rawRequest(world.api.port, { method, path });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
