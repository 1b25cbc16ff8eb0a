import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildDeliveredJobs } from '../../../test/factories';
import http from 'node:http';
import { rawRequest } from '../../../test/raw-http';

// Decision 050: an account's requests at work at once in an API process are bounded whatever its rate limits (here
// raised far above their defaults, as an operator may): the next wait their turn in the account's own line, one that
// gets no place in API_IN_FLIGHT_WAIT_MS answers 429 too_many_in_flight, another account is served meanwhile, and a
// sync generate gives its place back while it only waits for its job. The limit is work-conserving: it holds only while
// another account is present in the process, so each test that needs it keeps a bystander's request at work.
const IN_FLIGHT = 2;
// Long enough that "answered without waiting for a place" (< WAIT_MS) holds for a GET on a loaded machine (a 300 ms
// wait read 343 ms answers at load average 20), and the held requests below outlast it.
const WAIT_MS = 1_000;
let world: TestWorld;

beforeAll(async () => {
  world = await startWorld({
    // No worker: a sync generate waits out its `Prefer: wait`.
    worker: false,
    env: {
      API_IN_FLIGHT_PER_ACCOUNT: String(IN_FLIGHT),
      API_IN_FLIGHT_WAIT_MS: String(WAIT_MS),
      RATE_LIMIT_GENERATE_PER_MIN: '100000',
      RATE_LIMIT_READ_PER_MIN: '100000',
      // places rest whenever another account is present, however quiet the loop (the tests' loop is quiet)
      API_IN_FLIGHT_REST_MIN_BUSY: '0',
    },
  });
});
afterAll(() => world.close());

const body = { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request held at work: an async generate whose body comes in two parts, `holdMs` apart. Resolves its status. */
let held = 0;
function heldGenerate(port: number, auth: Record<string, string>, holdMs: number): Promise<number> {
  const json = JSON.stringify(body);
  held += 1;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/leads/generate',
        headers: {
          ...auth,
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(json)),
          Prefer: 'respond-async',
          'Idempotency-Key': `in-flight-held-${Date.now()}-${held}`,
        },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(json.slice(0, 5));
    setTimeout(() => req.end(json.slice(5)), holdMs);
  });
}

/**
 * Another account present for `ms`: one request of its own held at work that long (its place: one of its own). Present
 * once this returns: a call of its own answered after the held request was sent, which leaves the account present for
 * a second by itself (RECENT_MS) should the server not have reached the held request's headers yet (on a loaded CI
 * box 100 ms was not always enough, and the flood's requests then found the account alone and ran at once).
 */
async function bystander(ms: number): Promise<Promise<number>> {
  const { auth } = await buildAccount(world.db);
  const held = heldGenerate(world.api.port, auth, ms);
  expect((await world.http.get('/api/v1/account').set(auth)).status).toBe(200);
  return held;
}

describe('requests in flight per account', () => {
  it('when an account is alone in the process, then it is not limited: its calls beyond the limit are served at once', async () => {
    const alone = await buildAccount(world.db);
    const holding = Array.from({ length: IN_FLIGHT + 2 }, () => heldGenerate(world.api.port, alone.auth, 2_000));
    await sleep(200);
    const started = Date.now();
    expect((await world.http.get('/api/v1/account').set(alone.auth)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(WAIT_MS); // it did not wait for a place
    expect(await Promise.all(holding)).toEqual(Array(IN_FLIGHT + 2).fill(202));
  });

  it('when an account has API_IN_FLIGHT_PER_ACCOUNT requests at work, then its next waits for a place, answers 429 too_many_in_flight with Retry-After if none frees in time, and another account is served meanwhile', async () => {
    const flood = await buildAccount(world.db);
    const other = await buildAccount(world.db);
    const present = await bystander(3_000); // another account is there: the limit holds
    const holding = Array.from({ length: IN_FLIGHT }, () => heldGenerate(world.api.port, flood.auth, 3_000));
    await sleep(200);
    const started = Date.now();
    const refused = await world.http.get('/api/v1/account').set(flood.auth);
    expect({ status: refused.status, code: refused.body.code, limit: refused.body.limit }).toEqual({
      status: 429,
      code: 'too_many_in_flight',
      limit: IN_FLIGHT,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 20); // it waited its turn first
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Number(refused.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // Refused before its rate limit counted it: no window's RateLimit header.
    expect(refused.get('RateLimit')).toBeUndefined();
    expect((await world.http.get('/api/v1/account').set(other.auth)).status).toBe(200);
    // A request that waits gets the place of the first that ends.
    const waiting = world.http.get('/api/v1/account').set(flood.auth);
    expect(await Promise.all(holding)).toEqual([202, 202]);
    expect((await waiting).status).toBe(200);
    expect(await present).toBe(202);
  });

  it('when another account is present, then a place an account gave back rests before its next request takes it (API_IN_FLIGHT_REST): its requests are paced', async () => {
    const flood = await buildAccount(world.db);
    const present = await bystander(3_000);
    await sleep(100);
    // Twice the places, each held HOLD_MS: the first two take the places at once, the next two wait in line. Without a
    // rest they take the places as the first end (~HOLD_MS); with one (API_IN_FLIGHT_REST 2 by default: twice as long
    // as the place was held, at most a quarter of WAIT_MS) they start REST_MS later.
    const HOLD_MS = 400;
    const REST_MS = WAIT_MS / 4;
    const started = Date.now();
    const answered = Array.from({ length: 2 * IN_FLIGHT }, () =>
      heldGenerate(world.api.port, flood.auth, HOLD_MS).then((status) => ({ status, ms: Date.now() - started })),
    );
    const results = await Promise.all(answered);
    expect(results.map((r) => r.status)).toEqual(Array(2 * IN_FLIGHT).fill(202));
    const times = results.map((r) => r.ms).sort((a, b) => a - b);
    // The last two came after the first two's places rested (a margin under REST_MS for the timers). Measured from the
    // first answer: a waiting request takes a place no sooner than REST_MS after some place was given back, so at most
    // one answer (the other first request's, should it be slow on a loaded box) falls between the first and the third.
    expect(times[IN_FLIGHT]! - times[0]!).toBeGreaterThanOrEqual(REST_MS - 60);
    expect(times[IN_FLIGHT]!).toBeGreaterThanOrEqual(HOLD_MS + REST_MS - 60);
    expect(await present).toBe(202);

    // Alone again (the bystander left over a second ago): nothing rests, nothing waits; all four work at once.
    await sleep(1_100);
    const aloneStarted = Date.now();
    const alone = await Promise.all(
      Array.from({ length: 2 * IN_FLIGHT }, () =>
        heldGenerate(world.api.port, flood.auth, HOLD_MS).then((status) => ({ status, ms: Date.now() - aloneStarted })),
      ),
    );
    expect(alone.map((r) => r.status)).toEqual(Array(2 * IN_FLIGHT).fill(202));
    const aloneTimes = alone.map((r) => r.ms).sort((a, b) => a - b);
    expect(aloneTimes[IN_FLIGHT]! - aloneTimes[IN_FLIGHT - 1]!).toBeLessThan(REST_MS - 60);
  });

  it('when sync generates only wait for their jobs, then they hold no place: the account’s polls go through meanwhile', async () => {
    const who = await buildAccount(world.db);
    const present = await bystander(2_500);
    const generates = Array.from({ length: IN_FLIGHT + 1 }, (_, i) =>
      world.http
        .post('/api/v1/leads/generate')
        .set(who.auth)
        .set('Idempotency-Key', `in-flight-${Date.now()}-${i}`)
        .set('Prefer', 'wait=2')
        .send(body),
    );
    await sleep(700);
    const poll = await world.http.get('/api/v1/account').set(who.auth);
    expect(poll.status).toBe(200);
    expect((await Promise.all(generates)).map((r) => r.status)).toEqual([202, 202, 202]);
    expect(await present).toBe(202);
  });

  it('when a client goes away before its answer, then its place is given back', async () => {
    const who = await buildAccount(world.db);
    const present = await bystander(2_500);
    const controller = new AbortController();
    // Bodies that never end: each request holds its place until its client goes away. One upload and JSON bodies: an
    // account's second upload is refused before its body is read (one at a time, decision 035).
    const gone = Array.from({ length: IN_FLIGHT }, (_, i) =>
      fetch(`http://127.0.0.1:${world.api.port}/api/v1/${i === 0 ? 'suppressions' : 'webhooks'}`, {
        method: i === 0 ? 'PUT' : 'POST',
        headers: { ...who.auth, 'content-type': 'application/json' },
        body: new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(i === 0 ? '{"emails":[' : '{"url":')) }),
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit).catch(() => null),
    );
    await sleep(300);
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(429);
    controller.abort();
    await Promise.all(gone);
    await sleep(200);
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(200);
    expect(await present).toBe(202);
  });

  it('when downloads stream (paced instead, decision 049), then they hold no place: the account’s other calls go through', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    await buildDeliveredJobs(world.db, who.accountId, 30, 100);
    const present = await bystander(2_500);
    // Downloads whose client reads nothing after the headers: each stays in flight, its socket full.
    const downloads = Array.from({ length: IN_FLIGHT }, () => {
      const req = http.get({ host: '127.0.0.1', port: world.api.port, path: '/api/v1/leads?format=csv', headers: who.auth, agent: false });
      const status = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => (res.pause(), resolve(res.statusCode ?? 0)));
        req.on('error', reject);
      });
      return { req, status };
    });
    expect(await Promise.all(downloads.map((d) => d.status))).toEqual([200, 200]);
    const started = Date.now();
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    for (const d of downloads) d.req.destroy();
    expect(await present).toBe(202);
  });

  it('when a request’s connection is closed before its place is taken, then the place is given back at once', async () => {
    const who = await buildAccount(world.db);
    const present = await bystander(2_000);
    // A GET whose body has no Content-Length: Node parses the body as the next request on the connection, the API
    // answers that 400 malformed_request and closes the connection (client-error.ts) while the GET's key is still
    // being looked up, so the GET takes its place on a response whose 'close' has already come (the HTTP fuzz found
    // each such request held a place for good).
    for (let i = 0; i < IN_FLIGHT + 1; i += 1) {
      const res = await rawRequest(world.api.port, {
        method: 'GET',
        path: '/api/v1/leads/jobs/job_000000000000000000000000',
        headers: { ...who.auth, 'Content-Type': 'application/json' },
        body: Buffer.from('{"a":1}'),
      });
      expect(res.status).toBe(400);
    }
    await sleep(50);
    const started = Date.now();
    expect((await world.http.get('/api/v1/account').set(who.auth)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    expect(await present).toBe(202);
  });
});
