import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Lead, ShopifyLead } from '@leadgen/domain';
import { startFakeDnsServer, type FakeDnsServer } from '@leadgen/testing';
import { createDnsMailCheck } from './dns-mail-check';
import { parseEmail } from './email-checks';
import { createEmailVerifier, type EmailVerifier } from './email-verifier';
import { sandboxMailAnswer } from './sandbox-mail-rule';
import { VerdictCache } from './verdict-cache';
import { verifyLeadEmails, withEmailVerification } from './verify-lead-emails';
import { finishedPage, type LeadProvider } from '../lead-provider';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('parseEmail', () => {
  it('when addresses are well formed or not, then syntax says so', () => {
    expect(parseEmail('anna.berg+news@Mx.Test').checks.syntax).toBe(true);
    expect(parseEmail('jürgen@müller.test').asciiDomain).toBe('xn--mller-kva.test');
    for (const bad of [
      'no-at-sign',
      'a..b@mx.test',
      '.a@mx.test',
      'a@localhost',
      'a@192.168.0.1',
      'a b@mx.test',
      '@mx.test',
      'a@-x.test',
      `${'x'.repeat(65)}@mx.test`,
    ]) {
      expect({ bad, syntax: parseEmail(bad).checks.syntax }).toEqual({ bad, syntax: false });
    }
  });

  it('when the domain is on the kept lists, then disposable and freeProvider are flagged; role local parts are flagged', () => {
    expect(parseEmail('x@mailinator.com').checks.disposable).toBe(true);
    expect(parseEmail('x@gmail.com').checks).toMatchObject({ disposable: false, freeProvider: true });
    expect(parseEmail('x@web.de').checks.freeProvider).toBe(true);
    expect(parseEmail('x@mx.test').checks.freeProvider).toBe(false);
    expect(parseEmail('Sales+eu@mx.test').checks.roleAccount).toBe(true);
    expect(parseEmail('anna.berg@mx.test').checks.roleAccount).toBe(false);
  });
});

describe('createEmailVerifier with the fleet cache', () => {
  let dns: FakeDnsServer;
  let redis: Redis;
  const prefix = `h25-test-${randomBytes(4).toString('hex')}:mailverdict:`;
  const cache = () => new VerdictCache({ redis, key: (domain: string) => prefix + domain, floorSeconds: 60, ceilingSeconds: 3_600 });
  const verifier = (): EmailVerifier =>
    createEmailVerifier({ check: createDnsMailCheck({ servers: [dns.server], timeoutMs: 300, tries: 1 }), cache: cache(), concurrency: 4 });

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await dns.close();
  });

  it('when 25 addresses on one domain are verified, then the domain is looked up once; a second worker then costs no query', async () => {
    const addresses = Array.from({ length: 25 }, (_, i) => `person${i}@mx.test`);
    const first = await verifier().verify(addresses);
    expect([...first.values()].every((v) => v.status === 'accepts_mail')).toBe(true);
    expect(dns.queriesFor('mx.test')).toBe(1);
    // Another process: its own in-flight map, the same Redis.
    const second = await verifier().verify(['someone.else@mx.test']);
    expect(second.get('someone.else@mx.test')).toMatchObject({
      status: 'accepts_mail',
      checkedAt: first.get('person0@mx.test')!.checkedAt,
    });
    expect(dns.queriesFor('mx.test')).toBe(1);
    expect(await redis.ttl(`${prefix}mx.test`)).toBeGreaterThan(0);
  });

  it('when the answer carries a TTL, then the cache keeps it within the floor and ceiling', async () => {
    await verifier().verify(['a@a-only.test', 'b@gone-away-too.test']);
    const ttl = await redis.ttl(`${prefix}a-only.test`);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(120);
    // No TTL from Node for a negative answer: the typical value, bounded by the ceiling.
    const negative = await redis.ttl(`${prefix}gone-away-too.test`);
    expect(negative).toBeGreaterThan(120);
    expect(negative).toBeLessThanOrEqual(900);
  });

  it('when DNS does not answer, then unknown, not cached, and asked again next time', async () => {
    const v = verifier();
    expect((await v.verify(['x@servfail.test'])).get('x@servfail.test')!.status).toBe('unknown');
    expect(await redis.exists(`${prefix}servfail.test`)).toBe(0);
    await v.verify(['y@servfail.test']);
    expect(dns.queriesFor('servfail.test')).toBe(2);
  });

  it('when Redis is away, then verdicts still come from DNS', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const v = createEmailVerifier({
      check: createDnsMailCheck({ servers: [dns.server], timeoutMs: 300, tries: 1 }),
      cache: new VerdictCache({ redis: dead, key: (domain: string) => prefix + domain, floorSeconds: 60, ceilingSeconds: 3_600 }),
      concurrency: 2,
    });
    expect((await v.verify(['x@null-mx.test'])).get('x@null-mx.test')!.status).toBe('no_mail');
    dead.disconnect();
  });
});

function shopLead(email: string | null, contacts: Array<string | null>): ShopifyLead {
  return {
    source: 'shopify',
    businessName: 'Shop',
    email,
    phone: null,
    address: 'Street 1',
    website: 'https://shop.example',
    reviewScore: null,
    categories: [],
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
    store: { domain: 'shop.example', country: 'DE', platform: 'shopify' },
    contacts: contacts.map((c) => ({ name: 'N', title: 'Owner', email: c, phone: null, linkedinUrl: null })),
  };
}

describe('verifyLeadEmails (sandbox rule)', () => {
  const verifier = createEmailVerifier({ check: sandboxMailAnswer, cache: null, concurrency: 4 });

  it('when the lead email takes no mail, then the next-best contact address takes its place; every address keeps its verdict', async () => {
    const lead = shopLead('info@shop.no-mail.example', ['anna@shop.dns-timeout.example', 'ben@shop.example']);
    await verifyLeadEmails([lead], verifier);
    expect(lead.email).toBe('ben@shop.example');
    expect(lead.emailVerification?.status).toBe('accepts_mail');
    expect(lead.contacts.map((c) => c.emailVerification?.status)).toEqual(['unknown', 'accepts_mail']);
  });

  it('when nothing else can take its place, then email is null; an unknown address is delivered with its status', async () => {
    const gone = shopLead('info@shop.no-mail.example', []);
    const unsure = shopLead('info@shop.dns-timeout.example', []);
    await verifyLeadEmails([gone, unsure], verifier);
    expect(gone).toMatchObject({ email: null, emailVerification: null });
    expect(unsure).toMatchObject({ email: 'info@shop.dns-timeout.example', emailVerification: { status: 'unknown' } });
  });

  it('when the address is disposable, then it is never the lead email', async () => {
    const disposable = createEmailVerifier({
      check: () => Promise.resolve({ status: 'accepts_mail', basis: 'mx', ttlSeconds: null }),
      cache: null,
      concurrency: 1,
    });
    const lead = shopLead('x@mailinator.com', []);
    await verifyLeadEmails([lead], disposable);
    expect(lead.email).toBeNull();
  });

  it('when requiredChannels has email, then only stores with an address that takes mail are handed over', async () => {
    const rows = [
      shopLead('info@a.example', []),
      shopLead('info@b.no-mail.example', []),
      shopLead('info@c.dns-timeout.example', []),
      shopLead(null, ['owner@d.example']),
    ];
    const upstream: LeadProvider<'shopify'> = {
      source: 'shopify',
      name: 'fake',
      async *search() {
        yield { leads: rows.map((lead, i) => ({ dedupKey: String(i), lead: lead as Lead })), cursor: null };
      },
    };
    const provider = withEmailVerification(upstream, verifier);
    const request = { source: 'shopify' as const, category: 'x', state: 'DE', maxResults: 10, requiredChannels: ['email' as const] };
    const pages = [];
    for await (const page of provider.search(request, {
      signal: new AbortController().signal,
      cursor: null,
      deadline: Date.now() + 10_000,
    }))
      pages.push(await finishedPage(page, new AbortController().signal));
    expect(pages[0]!.leads.map((r) => r.dedupKey)).toEqual(['0', '3']);
    expect(pages[0]!.leads[1]!.lead.email).toBe('owner@d.example');
  });
});
