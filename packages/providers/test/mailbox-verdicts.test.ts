import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '@leadgen/config';
import type { ShopifyLead } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { startFakeDnsServer, type FakeDnsServer } from '@leadgen/testing';
import { closeProviders, createProviders } from '../src/registry';
import { FleetRateLimiter, UpstreamClient } from '../src/upstream';
import { countUpstreamCalls } from '../src/upstream/upstream-client';
import {
  createDnsMailCheck,
  createEmailVerifier,
  createMailboxStage,
  createReacherEngine,
  createZeroBounceEngine,
  MailboxCache,
  type MailboxEngine,
} from '../src/verification';
import { ReacherFake } from '@leadgen/testing';
import { makeStores, startStoreLeadsFake, type StoreLeadsFake } from '@leadgen/testing';
import { ZeroBounceFake } from '@leadgen/testing';
import { collect, context, FAST_RETRY, request, StubEnricher } from './support/provider-search';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let dns: FakeDnsServer;
let redis: Redis;
let reacher: ReacherFake;
let zerobounce: ZeroBounceFake;
let stores: StoreLeadsFake;
// Every key this file writes is under its own prefix, removed at the end.
const prefix = `h37-test-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  [dns, reacher, zerobounce, stores] = await Promise.all([
    startFakeDnsServer(),
    new ReacherFake('reacher-secret').start(),
    new ZeroBounceFake('zb-key').start(),
    startStoreLeadsFake('sl-key'),
  ]);
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await Promise.all([dns.close(), reacher.close(), zerobounce.close(), stores.close()]);
});
beforeEach(() => {
  for (const fake of [reacher, zerobounce, stores]) fake.reset();
  reacher.latencyMs = 0;
  reacher.catchAllDomains.clear();
  reacher.catchAllDomains.add('alias.test');
  zerobounce.catchAllDomains.clear();
});

let run = 0;
/** One worker process's verifier: its own in-flight map and down/up view, the shared Redis under a fresh key space per test. */
function worker(
  engine: 'reacher' | 'zerobounce' = 'reacher',
  options: { budgetMs?: number; ratePerMin?: number; space?: string; concurrency?: number } = {},
) {
  const space = options.space ?? `${prefix}:${run}`;
  const limiter = new FleetRateLimiter({ redis, key: `${space}:ratelimit:${engine}`, ratePerMin: options.ratePerMin ?? 60_000 });
  const client = (name: string, baseUrl: string, headers: Record<string, string>) =>
    new UpstreamClient({ name, baseUrl, headers, rateLimiter: limiter, retry: FAST_RETRY, attemptTimeoutMs: 2_000 });
  const mailboxEngine: MailboxEngine =
    engine === 'reacher'
      ? createReacherEngine(client('reacher', reacher.url, { 'x-reacher-secret': 'reacher-secret' }))
      : createZeroBounceEngine(client('zerobounce', zerobounce.url, {}), 'zb-key', 2_000);
  return createEmailVerifier({
    check: createDnsMailCheck({ servers: [dns.server], timeoutMs: 300, tries: 1 }),
    cache: null,
    concurrency: 4,
    mailbox: createMailboxStage({
      engine: mailboxEngine,
      cache: new MailboxCache({
        redis,
        key: (kind, e, name) => `${space}:${kind}:${e}:${name}`,
        addressTtlSeconds: 600,
        domainTtlSeconds: 300,
      }),
      concurrency: options.concurrency ?? 4,
      budgetMs: options.budgetMs ?? 5_000,
      downProbeMs: 60_000,
    }),
  });
}
const job = (ms = 20_000) => ({ signal: new AbortController().signal, deadline: Date.now() + ms });
beforeEach(() => {
  run += 1;
});

describe('mailbox verdicts through Reacher', () => {
  it("when two jobs verify at once through one worker's stage, then each job's upstream calls count the engine calls it started, and only those (decision 038)", async () => {
    // one engine call at a time, so the calls queue in the stage's limit
    const verifier = worker('reacher', { concurrency: 1 });
    const [a, b] = [new Map<string, number>(), new Map<string, number>()];
    // p-limit runs a queued call in the context of whichever call freed its slot: without the stage's own
    // scope, one job's calls would be counted in the other's.
    await Promise.all([
      countUpstreamCalls(a, () => verifier.verify(['anna@mx.test', 'nobody@mx.test', 'full@mx.test'], job())),
      countUpstreamCalls(b, () => verifier.verify(['greylisted@mx.test', 'info@mx.test'], job())),
    ]);
    expect(Object.fromEntries(a)).toEqual({ reacher: 3 });
    expect(Object.fromEntries(b)).toEqual({ reacher: 2 });
    expect(reacher.checks()).toHaveLength(5);
  });

  it('when addresses are verified, then each carries the mailbox verdict, the engine and its time; a no_mail domain is never sent', async () => {
    const verdicts = await worker().verify(
      ['anna@mx.test', 'nobody@mx.test', 'full@mx.test', 'greylisted@mx.test', 'info@mx.test', 'x@null-mx.test', 'y@mailinator.com'],
      job(),
    );
    expect(verdicts.get('anna@mx.test')).toMatchObject({
      status: 'accepts_mail',
      verdict: 'deliverable',
      engine: 'reacher',
      reason: 'is_reachable=safe',
    });
    expect(verdicts.get('nobody@mx.test')).toMatchObject({ verdict: 'undeliverable', engine: 'reacher' });
    expect(verdicts.get('full@mx.test')).toMatchObject({ verdict: 'risky', reason: 'is_reachable=risky; has_full_inbox' });
    expect(verdicts.get('greylisted@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'is_reachable=unknown; smtp error SmtpError' });
    // Reacher's risky for a role account alone: the mailbox exists; the role is in our own checks.
    expect(verdicts.get('info@mx.test')).toMatchObject({ verdict: 'deliverable', checks: { roleAccount: true } });
    expect(verdicts.get('x@null-mx.test')).toMatchObject({ status: 'no_mail', verdict: 'undeliverable', engine: 'dns' });
    expect(verdicts.get('y@mailinator.com')).toMatchObject({ engine: 'dns', checks: { disposable: true } });
    expect(Date.parse(verdicts.get('anna@mx.test')!.verdictAt!)).toBeGreaterThan(Date.now() - 10_000);
    const sent = reacher.checks().map((r) => (r.body as { to_email: string }).to_email);
    expect(sent.sort()).toEqual(['anna@mx.test', 'full@mx.test', 'greylisted@mx.test', 'info@mx.test', 'nobody@mx.test']);
    expect(reacher.checks().every((r) => r.headers['x-reacher-secret'] === 'reacher-secret')).toBe(true);
  });

  it('when a domain is catch-all, then it is probed once per TTL: the rest of the page and another worker cost no call', async () => {
    const page = Array.from({ length: 10 }, (_, i) => `person${i}@alias.test`);
    const first = await worker().verify(page, job());
    expect([...first.values()].every((v) => v.verdict === 'catch_all')).toBe(true);
    expect(reacher.checks()).toHaveLength(1);
    const space = `${prefix}:${run}`;
    const second = await worker('reacher', { space }).verify(['someone.else@alias.test'], job());
    expect(second.get('someone.else@alias.test')).toMatchObject({
      verdict: 'catch_all',
      verdictAt: first.get('person0@alias.test')!.verdictAt,
    });
    expect(reacher.checks()).toHaveLength(1);
    expect(await redis.ttl(`${space}:maildomain:reacher:alias.test`)).toBeGreaterThan(200);
  });

  it('when two workers meet a new catch-all domain at the same moment, then it is probed once fleet-wide: the second waits for the first probe', async () => {
    // Each worker has its own in-flight map (a process's); only the shared Redis can keep them from both probing.
    reacher.latencyMs = 300;
    const space = `${prefix}:${run}`;
    const [a, b] = [worker('reacher', { space }), worker('reacher', { space })];
    const [first, second] = await Promise.all([
      a.verify(['ann@alias.test', 'bob@alias.test'], job()),
      b.verify(['cat@alias.test', 'dan@alias.test'], job()),
    ]);
    expect(reacher.checks()).toHaveLength(1);
    for (const verdicts of [first, second]) expect([...verdicts.values()].every((v) => v.verdict === 'catch_all')).toBe(true);
    // the probe's lease is given back at once; the domain's finding stays for its TTL
    expect(await redis.exists(`${space}:maildomainprobe:reacher:alias.test`)).toBe(0);
    expect(await redis.ttl(`${space}:maildomain:reacher:alias.test`)).toBeGreaterThan(200);
  });

  it('when two workers meet a new domain that is not catch-all, then the second waits for the probe and then verifies only its own addresses', async () => {
    reacher.latencyMs = 200;
    const space = `${prefix}:${run}`;
    const [a, b] = [worker('reacher', { space }), worker('reacher', { space })];
    const [first, second] = await Promise.all([a.verify(['anna@mx.test'], job()), b.verify(['info@mx.test'], job())]);
    expect(first.get('anna@mx.test')).toMatchObject({ verdict: 'deliverable' });
    expect(second.get('info@mx.test')).toMatchObject({ verdict: 'deliverable' });
    const sent = reacher.checks().map((r) => (r.body as { to_email: string }).to_email);
    expect(sent.sort()).toEqual(['anna@mx.test', 'info@mx.test']);
  });

  it('when an address was verified by one worker, then another reads it from the cache; unknown is never kept', async () => {
    const space = `${prefix}:${run}`;
    await worker('reacher', { space }).verify(['anna@mx.test', 'greylist@mx.test'], job());
    expect(reacher.checks()).toHaveLength(2);
    const again = await worker('reacher', { space }).verify(['anna@mx.test', 'greylist@mx.test'], job());
    expect(again.get('anna@mx.test')).toMatchObject({ verdict: 'deliverable', engine: 'reacher' });
    // The domain was found not catch-all by the first probe, so the known address is not asked again; the unknown one is.
    expect(reacher.checks().map((r) => (r.body as { to_email: string }).to_email)).toEqual([
      'anna@mx.test',
      'greylist@mx.test',
      'greylist@mx.test',
    ]);
  });

  it('when Reacher answers 500 then 200, then the address is retried with backoff and verified', async () => {
    reacher.failNext({ status: 500 });
    const verdicts = await worker().verify(['anna@mx.test'], job());
    expect(verdicts.get('anna@mx.test')!.verdict).toBe('deliverable');
    expect(reacher.checks()).toHaveLength(2);
  });

  it('when the page budget runs out, then what is not back is unknown (late), the page is not held, and late is not cached', async () => {
    reacher.latencyMs = 2_500;
    const space = `${prefix}:${run}`;
    const started = Date.now();
    const verdicts = await worker('reacher', { budgetMs: 300, space }).verify(['slow@mx.test'], job());
    // The budget, not the engine's 2.5 s (bounds are loose: the machine may be loaded).
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(verdicts.get('slow@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'late', engine: 'reacher' });
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await redis.get(`${space}:mailbox:reacher:slow@mx.test`)).toBeNull();
  });

  it("when the job's deadline is near, then the page returns a second before it whatever the budget", async () => {
    reacher.latencyMs = 3_000;
    const started = Date.now();
    const verdicts = await worker('reacher', { budgetMs: 60_000 }).verify(['late@mx.test'], job(1_500));
    expect(Date.now() - started).toBeLessThan(1_450);
    expect(verdicts.get('late@mx.test')!.verdict).toBe('unknown');
  });

  it('when the fleet rate limit allows 2 a second, then the third call waits for its token, and one past the budget is late', async () => {
    const v = worker('reacher', { ratePerMin: 120, budgetMs: 2_000 });
    const started = Date.now();
    // Capacity at 120/min is ten seconds' worth over six: 20 at once. Spend them, then time one more.
    const burst = Array.from({ length: 20 }, (_, i) => `p${i}@mx.test`);
    await v.verify(burst, job());
    const verdicts = await v.verify(['next1@mx.test', 'next2@mx.test'], job());
    const elapsed = Date.now() - started;
    expect(verdicts.get('next1@mx.test')!.verdict).toBe('deliverable');
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(reacher.checks()).toHaveLength(22);
    // The bucket is empty: a page whose budget ends before the next token gets `unknown`, no call.
    const late = await worker('reacher', { ratePerMin: 120, budgetMs: 100, space: `${prefix}:${run}` }).verify(['third@mx.test'], job());
    expect(late.get('third@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'late' });
    expect(reacher.checks()).toHaveLength(22);
  });
});

describe('a verifier that is down', () => {
  it('when Reacher is down, then verdicts are unknown, one warning is logged, calls stop until the probe; one info line when it is back', async () => {
    const warn = jest.spyOn(logger, 'warn');
    const info = jest.spyOn(logger, 'info');
    try {
      reacher.failAlways({ status: 503 });
      const v = worker();
      const first = await v.verify(['a@mx.test'], job());
      expect(first.get('a@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'verifier_error', status: 'accepts_mail' });
      const calls = reacher.checks().length;
      const second = await v.verify(['b@mx.test', 'c@mx.test'], job());
      expect(second.get('b@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'verifier_down' });
      expect(reacher.checks()).toHaveLength(calls);
      const downLines = warn.mock.calls.filter(([message]) => String(message).startsWith('email verifier down'));
      expect(downLines).toHaveLength(1);
    } finally {
      warn.mockRestore();
      info.mockRestore();
    }
  });

  it('when the engine comes back, then the next probe after downProbeMs verifies again and says so once', async () => {
    const info = jest.spyOn(logger, 'info');
    try {
      reacher.failAlways({ status: 503 });
      const engine = createReacherEngine(
        new UpstreamClient({
          name: 'reacher',
          baseUrl: reacher.url,
          headers: { 'x-reacher-secret': 'reacher-secret' },
          retry: { ...FAST_RETRY, maxAttempts: 1 },
        }),
      );
      const stage = createMailboxStage({ engine, cache: null, concurrency: 2, budgetMs: 2_000, downProbeMs: 200 });
      const target = (address: string) => [{ address, domain: 'mx.test' }];
      expect((await stage.verify(target('a@mx.test'), job().signal, job().deadline)).get('a@mx.test')!.reason).toBe('verifier_error');
      reacher.reset();
      expect((await stage.verify(target('b@mx.test'), job().signal, job().deadline)).get('b@mx.test')!.reason).toBe('verifier_down');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await stage.verify(target('c@mx.test'), job().signal, job().deadline)).get('c@mx.test')!.verdict).toBe('deliverable');
      expect((await stage.verify(target('d@mx.test'), job().signal, job().deadline)).get('d@mx.test')!.verdict).toBe('deliverable');
      expect(info.mock.calls.filter(([message]) => String(message).startsWith('email verifier answering again'))).toHaveLength(1);
    } finally {
      info.mockRestore();
    }
  });

  it('when the engine hangs, then each page waits only its budget, and after five calls in a row not answered it is down: unknown at once', async () => {
    reacher.failAlways('hang');
    const warn = jest.spyOn(logger, 'warn');
    try {
      const v = worker('reacher', { budgetMs: 200 });
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const page = await v.verify([`hang${i}@mx.test`], job());
        expect(Date.now() - started).toBeLessThan(1_500);
        expect(page.get(`hang${i}@mx.test`)).toMatchObject({ verdict: 'unknown', reason: 'late' });
      }
      await new Promise((resolve) => setTimeout(resolve, 600));
      const calls = reacher.checks().length;
      const started = Date.now();
      const after = await v.verify(['next@mx.test'], job());
      expect(Date.now() - started).toBeLessThan(500);
      expect(after.get('next@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'verifier_down' });
      expect(reacher.checks()).toHaveLength(calls);
      expect(warn.mock.calls.filter(([message]) => String(message).startsWith('email verifier down'))).toHaveLength(1);
    } finally {
      warn.mockRestore();
      reacher.reset();
    }
  });

  it('when the engine refuses the secret, then the job still gets verdicts: unknown, never an error', async () => {
    const engine = createReacherEngine(new UpstreamClient({ name: 'reacher', baseUrl: reacher.url, headers: {}, retry: FAST_RETRY }));
    const stage = createMailboxStage({ engine, cache: null, concurrency: 2, budgetMs: 2_000, downProbeMs: 60_000 });
    const result = await stage.verify([{ address: 'a@mx.test', domain: 'mx.test' }], job().signal, job().deadline);
    expect(result.get('a@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'verifier_error' });
  });
});

describe('mailbox verdicts through ZeroBounce', () => {
  it('when addresses are validated, then its statuses map onto the one vocabulary', async () => {
    zerobounce.catchAllDomains.add('alias.test');
    const verdicts = await worker('zerobounce').verify(
      [
        'anna@mx.test',
        'invalid@mx.test',
        'quota@mx.test',
        'spamtrap@mx.test',
        'role@mx.test',
        'donotmail@mx.test',
        'unknown@mx.test',
        'x@alias.test',
      ],
      job(),
    );
    const got = Object.fromEntries([...verdicts].map(([address, v]) => [address, `${v.verdict} ${v.reason}`]));
    expect(got).toEqual({
      'anna@mx.test': 'deliverable status=valid',
      'invalid@mx.test': 'undeliverable status=invalid/mailbox_not_found',
      'quota@mx.test': 'risky status=invalid/mailbox_quota_exceeded',
      'spamtrap@mx.test': 'risky status=spamtrap',
      'role@mx.test': 'deliverable status=do_not_mail/role_based',
      'donotmail@mx.test': 'risky status=do_not_mail/global_suppression',
      'unknown@mx.test': 'unknown status=unknown/greylisted',
      'x@alias.test': 'catch_all status=catch-all',
    });
    const query = zerobounce.validations()[0]!.query;
    expect(query.get('api_key')).toBe('zb-key');
    expect(query.has('ip_address')).toBe(true);
  });

  it('when the key is refused (HTTP 200 with error), then unknown, and the key is in no log line', async () => {
    const warn = jest.spyOn(logger, 'warn');
    try {
      const engine = createZeroBounceEngine(
        new UpstreamClient({ name: 'zerobounce', baseUrl: zerobounce.url, headers: {}, retry: FAST_RETRY }),
        'wrong-key-123',
        5_000,
      );
      const stage = createMailboxStage({ engine, cache: null, concurrency: 2, budgetMs: 2_000, downProbeMs: 60_000 });
      const result = await stage.verify([{ address: 'a@mx.test', domain: 'mx.test' }], job().signal, job().deadline);
      expect(result.get('a@mx.test')).toMatchObject({ verdict: 'unknown', reason: 'verifier_error' });
      expect(JSON.stringify(warn.mock.calls)).toContain('credentials refused');
      expect(JSON.stringify(warn.mock.calls)).not.toContain('wrong-key-123');
    } finally {
      warn.mockRestore();
    }
  });
});

describe('EMAIL_VERIFIER=reacher through the registry (a shopify job)', () => {
  it("when stores carry addresses, then the lead's email is the best one, an undeliverable one never is, and requiredChannels keeps catch-all", async () => {
    stores.stores = makeStores(3, (i) => ({
      contact_info: [
        [
          { type: 'email', value: 'nobody@mx.test' },
          { type: 'email', value: 'anna@mx.test' },
        ],
        [{ type: 'email', value: 'shop@alias.test' }],
        [{ type: 'email', value: 'nobody.else@mx.test' }],
      ][i]!,
    }));
    const config = loadConfig({
      ...process.env,
      QUEUE_PREFIX: `${prefix}:registry`,
      STORELEADS_API_KEY: 'sl-key',
      STORELEADS_BASE_URL: stores.url,
      PDL_API_KEY: '',
      EMAIL_VERIFIER: 'reacher',
      REACHER_URL: reacher.url,
      REACHER_SECRET: 'reacher-secret',
      DNS_SERVERS: dns.server,
    });
    const providers = createProviders(config, ['shopify'], { redis, enricher: new StubEnricher() });
    try {
      const pages = await collect(
        providers.shopify!,
        request({ source: 'shopify', category: 'apparel', city: undefined, requiredChannels: ['email'] }),
        context(),
      );
      const leads = pages.flatMap((p) => p.leads.map((l) => l.lead as ShopifyLead));
      const byStore = Object.fromEntries(leads.map((l) => [l.store.domain, l]));
      expect(byStore['store0.com']).toMatchObject({
        email: 'anna@mx.test',
        emailVerification: { verdict: 'deliverable', engine: 'reacher' },
      });
      expect(byStore['store1.com']).toMatchObject({ email: 'shop@alias.test', emailVerification: { verdict: 'catch_all' } });
      // Its only address does not exist: no email channel, so not delivered (nor billed).
      expect(byStore['store2.com']).toBeUndefined();
    } finally {
      await closeProviders(providers);
      const keys = await redis.keys(`${prefix}:registry*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
