import http from 'node:http';
import supertest, { type Response } from 'supertest';
import { revokeKey, type Database } from '@leadgen/db';
import { LINKEDIN_COUNTRIES } from '@leadgen/domain';
import { createApp } from '../src/app';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld();
  account = await buildAccount(world.db, { credits: 100_000 });
});
afterAll(() => world.close());

const GENERATE = '/api/v1/leads/generate';
const valid = { category: 'dentist', state: 'US', maxResults: 1 };
const respondAsync = { Prefer: 'respond-async' };

/** A job id that is well formed but names no job. */
const UNKNOWN_JOB_ID = `job_${'0'.repeat(24)}`;

/** RFC 9457 Problem Details with our members, and nothing internal in the text. */
function expectProblem(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.get('Content-Type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
    requestId: res.get('X-Request-Id'),
  });
  expect(res.body.requestId).toBeTruthy();
  expect(res.text).not.toMatch(/\bat \S+ \(|\bat .*:\d+:\d+|Error:|\.ts\b|node_modules|stack/);
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A POST whose headers are exactly these: supertest would add a Content-Type of its own. */
function rawPost(path: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port: world.api.port,
      method: 'POST',
      path,
      headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
    };
    const req = http.request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

function post(who: TestAccount, key = idempotencyKey()) {
  return world.http.post(GENERATE).set(who.auth).set('Idempotency-Key', key);
}

describe('JSON in, JSON out', () => {
  it('when the Content-Type is text/plain, then 415 unsupported_media_type', async () => {
    const res = await post(account).set('Content-Type', 'text/plain').send(JSON.stringify(valid));
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('when there is no Content-Type, then 415 unsupported_media_type', async () => {
    const res = await rawPost(GENERATE, { ...account.auth, 'Idempotency-Key': idempotencyKey() }, JSON.stringify(valid));
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(res.status).toBe(415);
  });

  it('when the Content-Type is application/json; charset=utf-8, then the body is accepted', async () => {
    const res = await post(account).set(respondAsync).set('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify(valid));
    expect(res.status).toBe(202);
    expect(res.get('Content-Type')).toMatch(/^application\/json/);
  });

  it('when the JSON names a charset other than UTF-8, then 415', async () => {
    const res = await post(account).set('Content-Type', 'application/json; charset=iso-8859-1').send(JSON.stringify(valid));
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('when the JSON is malformed, then 400 malformed_json', async () => {
    const res = await post(account).set('Content-Type', 'application/json').send('{"category": "dentist", "state": ');
    expectProblem(res, 400, 'malformed_json');
    expect(res.text).not.toMatch(/Unexpected|position/);
  });

  it('when the body is over 16 KiB of valid JSON, then 413 payload_too_large', async () => {
    const body = JSON.stringify({ ...valid, keyword: 'k'.repeat(17 * 1024) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(17 * 1024);
    const res = await post(account).set('Content-Type', 'application/json').send(body);
    expectProblem(res, 413, 'payload_too_large');
  });
});

describe('Problem Details and what never reaches a client', () => {
  /** An app on the world's real Redis and config whose database fails with `error`. */
  function appWithFailingDatabase(error: Error) {
    const failing = new Proxy(world.api.deps.db, {
      get: (target, prop) => (prop === 'sql' ? { query: () => Promise.reject(error) } : Reflect.get(target, prop)),
    }) as Database;
    return supertest(createApp({ ...world.api.deps, db: failing }));
  }

  it('when the code fails unexpectedly, then a bare 500 problem without the internal message or stack', async () => {
    const secret = new Error('relation "api_keys" exploded near SECRET_INTERNAL_DETAIL');
    const res = await appWithFailingDatabase(secret).get('/api/v1/account').set(account.auth);
    expectProblem(res, 500, 'internal_error');
    expect(res.text).not.toContain('SECRET_INTERNAL_DETAIL');
    expect(res.text).not.toContain('api_keys');
  });

  it('when a backing service is unreachable, then 503 service_unavailable with Retry-After and no internals', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432 SECRET_HOST'), { code: 'ECONNREFUSED' });
    const res = await appWithFailingDatabase(refused).get('/api/v1/account').set(account.auth);
    expectProblem(res, 503, 'service_unavailable');
    expect(res.get('Retry-After')).toMatch(/^\d+$/);
    expect(res.text).not.toMatch(/SECRET_HOST|ECONNREFUSED|5432/);
  });

  it('when errors of every kind are answered, then each is a full problem document', async () => {
    const answers = await Promise.all([
      world.http.get('/nowhere'),
      world.http.put(GENERATE),
      world.http.get('/api/v1/account'),
      post(account).set('Content-Type', 'text/plain').send('x'),
      world.http.get(`/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`).set(account.auth),
    ]);
    expect(answers.map((r) => r.status)).toEqual([404, 405, 401, 415, 404]);
    for (const res of answers) expectProblem(res, res.status, res.body.code);
  });
});

describe('X-Request-Id', () => {
  it('when the client sends a sane id, then it is echoed, also inside a problem', async () => {
    const ok = await world.http.get('/healthz').set('X-Request-Id', 'abc-123');
    expect(ok.get('X-Request-Id')).toBe('abc-123');
    const problem = await world.http.get('/api/v1/account').set('X-Request-Id', 'abc-123');
    expect(problem.get('X-Request-Id')).toBe('abc-123');
    expect(problem.body.requestId).toBe('abc-123');
  });

  it.each([
    ['300 characters long', 'r'.repeat(300)],
    ['with spaces', 'abc 123'],
    ['with a tab', 'abc\t123'],
    ['with markup', '<script>alert(1)</script>'],
  ])('when the client id is %s, then a new one replaces it', async (_name, given) => {
    const res = await world.http.get('/healthz').set('X-Request-Id', given);
    const id = res.get('X-Request-Id');
    expect(id).toBeTruthy();
    expect(id).not.toBe(given);
    expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('when the client sends none, then every response still carries a fresh one', async () => {
    const answers = await Promise.all([
      world.http.get('/healthz'),
      world.http.get('/api/v1/nowhere'),
      world.http.get('/api/v1/account'),
      world.http.get('/api/v1/account').set(account.auth),
      world.http.put(GENERATE),
      generate(world, account, valid, respondAsync),
      generate(world, account, { ...valid, maxResults: 0 }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 404, 401, 200, 405, 202, 400]);
    const ids = answers.map((r) => r.get('X-Request-Id'));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('authentication', () => {
  function expectUnauthorized(res: Response, ...secrets: string[]): void {
    expectProblem(res, 401, 'unauthorized');
    expect(res.get('WWW-Authenticate')).toMatch(/^Bearer\b/);
    for (const secret of secrets) {
      expect(res.text).not.toContain(secret);
      expect(JSON.stringify(res.headers)).not.toContain(secret);
    }
  }

  it('when the Authorization header is missing, then 401 on every authenticated endpoint', async () => {
    const answers = await Promise.all([
      world.http.post(GENERATE).set('Idempotency-Key', idempotencyKey()).send(valid),
      world.http.get(`/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`),
      world.http.delete(`/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`),
      world.http.get('/api/v1/account'),
    ]);
    for (const res of answers) expectUnauthorized(res);
  });

  it.each([
    ['another scheme', (key: string) => `Basic ${Buffer.from(`user:${key}`).toString('base64')}`],
    ['Bearer with no token', () => 'Bearer'],
    ['the key with no scheme', (key: string) => key],
    ['two tokens', (key: string) => `Bearer ${key} ${key}`],
  ])('when the Authorization header is %s, then 401', async (_name, header) => {
    const res = await world.http.get('/api/v1/account').set('Authorization', header(account.apiKey));
    expectUnauthorized(res, account.apiKey);
  });

  it('when the key is unknown, then 401 and the key is not repeated back', async () => {
    const unknown = `lg_live_${'z'.repeat(40)}`;
    const res = await generate(world, { ...account, auth: { Authorization: `Bearer ${unknown}` } }, valid);
    expectUnauthorized(res, unknown);
  });

  it('when the key is revoked, then 401 and the key is not repeated back', async () => {
    const who = await buildAccount(world.db, { credits: 100 });
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(200);
    expect(await revokeKey(world.db, { apiKey: who.apiKey })).not.toBeNull();
    expectUnauthorized(await world.http.get('/api/v1/account').set(who.auth), who.apiKey);
    expectUnauthorized(await generate(world, who, valid), who.apiKey);
  });

  it('when the scheme is written in lower case, then it is accepted (auth schemes are case-insensitive)', async () => {
    const res = await world.http.get('/api/v1/account').set('Authorization', `bearer ${account.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(account.apiKey);
  });
});

describe('the Idempotency-Key header', () => {
  it('when it is missing, then 400 idempotency_key_missing', async () => {
    const res = await world.http.post(GENERATE).set(account.auth).send(valid);
    expectProblem(res, 400, 'idempotency_key_missing');
  });

  it.each([
    ['empty', ''],
    ['only blanks', '   '],
    ['an empty quoted string', '""'],
    ['256 characters', 'k'.repeat(256)],
  ])('when it is %s, then 400 idempotency_key_invalid', async (_name, key) => {
    const res = await post(account, key).send(valid);
    expectProblem(res, 400, 'idempotency_key_invalid');
  });

  it('when it is 255 characters, then it is accepted', async () => {
    const key = `${idempotencyKey()}-`.padEnd(255, 'k');
    expect(key).toHaveLength(255);
    const res = await post(account, key).set(respondAsync).send(valid);
    expect(res.status).toBe(202);
  });

  it('when a request is refused with 400, 401, 402, 413 or 415, then the key is not bound and works afterwards', async () => {
    const who = await buildAccount(world.db, { credits: 15 }); // google_maps reserves at least 10 credits
    const key = idempotencyKey();
    const json = (res: supertest.Test) => res.set('Content-Type', 'application/json');

    expect((await post(who, key).send({ ...valid, maxResults: 0 })).status).toBe(400);
    expect((await json(post(who, key)).send('{"category":')).status).toBe(400);
    expect((await post(who, key).set('Content-Type', 'text/plain').send('hello')).status).toBe(415);
    expect((await json(post(who, key)).send(JSON.stringify({ ...valid, keyword: 'k'.repeat(17 * 1024) }))).status).toBe(413);
    expect((await post(who, key).send({ ...valid, maxResults: 8 })).status).toBe(402);
    const stranger = { ...who, auth: { Authorization: `Bearer lg_live_${'q'.repeat(40)}` } };
    expect((await post(stranger, key).send(valid)).status).toBe(401);

    expect(await world.db.job.count({ where: { accountId: who.accountId } })).toBe(0);
    expect(await world.db.idempotencyKey.count({ where: { accountId: who.accountId } })).toBe(0);

    const created = await post(who, key).set(respondAsync).send(valid);
    expect(created.status).toBe(202);
    expect(created.get('Idempotent-Replayed')).toBeUndefined();
    expect(await world.db.job.count({ where: { accountId: who.accountId } })).toBe(1);
    const replayed = await post(who, key).set(respondAsync).send(valid);
    expect(replayed.get('Idempotent-Replayed')).toBe('true');
    expect(replayed.body.jobId).toBe(created.body.jobId);
  });
});

describe('routing', () => {
  it.each(['/nowhere', '/api/v1/nowhere', '/api/v2/leads/generate', '/api/v1/leads/jobs/x/nowhere'])(
    'when %s is asked for, then 404 not_found',
    async (path) => {
      expectProblem(await world.http.get(path).set(account.auth), 404, 'not_found');
    },
  );

  it.each([
    ['put', GENERATE, 'POST'],
    ['get', GENERATE, 'POST'],
    ['patch', `/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`, 'GET, DELETE'],
    ['post', '/api/v1/account', 'GET'],
  ] as const)('when %s %s, then 405 with Allow: %s', async (method, path, allow) => {
    const res = await world.http[method](path).set(account.auth);
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.get('Allow')).toBe(allow);
  });
});

describe("a job that is not the caller's answers as one that does not exist", () => {
  /** What a client can see of a 404, less the per-request id. */
  function shape(res: Response) {
    const { requestId: _id, ...body } = res.body as Record<string, unknown>;
    return { status: res.status, contentType: res.get('Content-Type'), headers: Object.keys(res.headers).sort(), body };
  }

  it.each(['nope', 'job_short', `job_${'A'.repeat(24)}`, `JOB_${'0'.repeat(24)}`, `${UNKNOWN_JOB_ID}0`])(
    'when the job id %s is malformed, then 404 job_not_found',
    async (jobId) => {
      expectProblem(await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth), 404, 'job_not_found');
      expectProblem(await world.http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth), 404, 'job_not_found');
    },
  );

  it('when the id is well formed but unknown, then 404 job_not_found', async () => {
    expectProblem(await world.http.get(`/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`).set(account.auth), 404, 'job_not_found');
  });

  it('when another account asks for or cancels a job, then the answer is that of an unknown job, and the job is untouched', async () => {
    const owner = await buildAccount(world.db);
    const other = await buildAccount(world.db);
    const created = await generate(world, owner, { ...valid, maxResults: 20, keyword: 'sandbox:delay=200' }, respondAsync);
    expect(created.status).toBe(202);
    const jobPath = `/api/v1/leads/jobs/${created.body.jobId}`;
    const unknownPath = `/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`;

    for (const method of ['get', 'delete'] as const) {
      const foreign = await world.http[method](jobPath).set(other.auth);
      const unknown = await world.http[method](unknownPath).set(other.auth);
      expectProblem(foreign, 404, 'job_not_found');
      expect(shape(foreign)).toEqual(shape(unknown));
      expect(foreign.text).not.toContain(created.body.jobId);
    }

    const mine = await world.http.get(jobPath).set(owner.auth);
    expect(mine.status).toBe(200);
    expect(mine.body.status).not.toBe('CANCELLED');
    await world.http.delete(jobPath).set(owner.auth);
  });
});

describe('health and meta', () => {
  it('when /healthz is asked, then 200', async () => {
    const res = await world.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when /readyz is asked with PostgreSQL and Redis up, then 200 with both checks ok', async () => {
    const res = await world.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('when the linkedin countries are asked for, then the governed list, by name', async () => {
    const res = await world.http.get('/api/v1/meta/linkedin-countries');
    expect(res.status).toBe(200);
    expect(res.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.body.name).toBe('linkedin-supported-countries v1');
    expect(res.body.countries).toEqual(LINKEDIN_COUNTRIES.map(({ code, name }) => ({ code, name })));
    expect(res.body.countries).toContainEqual({ code: 'DE', name: 'Germany' });
    expect(res.body.countries).not.toContainEqual(expect.objectContaining({ code: 'KP' }));
  });
});

describe('rate limits', () => {
  let limited: TestWorld;

  beforeAll(async () => {
    limited = await startWorld({ env: { RATE_LIMIT_GENERATE_PER_MIN: '3', RATE_LIMIT_READ_PER_MIN: '5' } });
  });
  afterAll(() => limited.close());

  /**
   * The limits count in fixed one-minute windows. A test that straddled a window's end would see
   * its count restart, so when less than 8 s are left it starts in the next window.
   */
  async function roomInWindow(): Promise<void> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  }

  function limitedGenerate(who: TestAccount, key = idempotencyKey()) {
    return limited.http.post(GENERATE).set(who.auth).set('Idempotency-Key', key).set(respondAsync).send(valid);
  }

  it('when an account makes a 4th generate call within the minute, then 429 rate_limited with Retry-After, and no one else is affected', async () => {
    const who = await buildAccount(limited.db);
    const bystander = await buildAccount(limited.db);
    await roomInWindow();

    for (const remaining of [2, 1, 0]) {
      const res = await limitedGenerate(who);
      expect(res.status).toBe(202);
      expect(res.get('RateLimit-Policy')).toBe('"generate";q=3;w=60');
      expect(res.get('RateLimit')).toMatch(new RegExp(`^"generate";r=${remaining};t=\\d+$`));
    }

    const key = idempotencyKey();
    const refused = await limitedGenerate(who, key);
    expectProblem(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.get('Retry-After'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.get('RateLimit')).toMatch(/^"generate";r=0;t=\d+$/);
    // a 429 comes before any job, so it neither creates one nor binds the key
    expect(await limited.db.job.count({ where: { accountId: who.accountId } })).toBe(3);
    expect(await limited.db.idempotencyKey.count({ where: { accountId: who.accountId, key } })).toBe(0);

    const unaffected = await limitedGenerate(bystander);
    expect(unaffected.status).toBe(202);
    expect(unaffected.get('RateLimit')).toMatch(/^"generate";r=2;/);
  });

  it('when the read limit is spent, then 429 on reads, while generate keeps its own budget', async () => {
    const who = await buildAccount(limited.db);
    await roomInWindow();

    const created = await limitedGenerate(who);
    expect(created.status).toBe(202);
    const jobPath = `/api/v1/leads/jobs/${created.body.jobId}`;
    const reads = [
      () => limited.http.get('/api/v1/account').set(who.auth),
      () => limited.http.get(jobPath).set(who.auth),
      () => limited.http.get(`/api/v1/leads/jobs/${UNKNOWN_JOB_ID}`).set(who.auth),
      () => limited.http.delete(jobPath).set(who.auth),
      () => limited.http.get(jobPath).set(who.auth),
    ];
    for (const [i, read] of reads.entries()) {
      const res = await read();
      expect(res.status).toBeLessThan(429);
      expect(res.get('RateLimit-Policy')).toBe('"read";q=5;w=60');
      expect(res.get('RateLimit')).toMatch(new RegExp(`^"read";r=${4 - i};t=\\d+$`));
    }

    const refused = await limited.http.get(jobPath).set(who.auth);
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.get('Retry-After')).toMatch(/^\d+$/);

    const generateStill = await limitedGenerate(who);
    expect(generateStill.status).toBe(202);
  });
});
