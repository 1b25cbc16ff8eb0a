import { startFakeDnsServer, type FakeDnsServer } from '@leadgen/testing';
import { createDnsMailCheck, type DomainMailCheck } from './dns-mail-check';
import { asciiHostName } from './email-checks';

// Every case against a real authoritative server on loopback (packages/testing/src/fake-dns-server.ts): the
// resolver is Node's own, so what is tested is what the worker does.
describe('createDnsMailCheck', () => {
  let dns: FakeDnsServer;
  let check: DomainMailCheck;

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    // A second per lookup: 300 ms timed out now and then on a loaded machine (an answer read as `timeout`).
    check = createDnsMailCheck({ servers: [dns.server], timeoutMs: 1_000, tries: 1 });
  });
  afterAll(() => dns.close());

  it('when the domain has MX records, then it accepts mail', async () => {
    await expect(check('mx.test')).resolves.toMatchObject({ status: 'accepts_mail', basis: 'mx' });
  });

  it('when the domain has no MX but an A/AAAA record, then it accepts mail (RFC 5321 §5.1) and the record TTL is kept', async () => {
    await expect(check('a-only.test')).resolves.toEqual({ status: 'accepts_mail', basis: 'address_fallback', ttlSeconds: 120 });
  });

  it('when the domain publishes a null MX, then no mail, even with an A record beside it (RFC 7505)', async () => {
    await expect(check('null-mx.test')).resolves.toMatchObject({ status: 'no_mail', basis: 'null_mx' });
  });

  it('when the domain does not exist, then no mail', async () => {
    await expect(check('gone-away.test')).resolves.toMatchObject({ status: 'no_mail', basis: 'nxdomain' });
  });

  it('when the domain exists with neither MX nor address records, then no mail', async () => {
    await expect(check('no-records.test')).resolves.toMatchObject({ status: 'no_mail', basis: 'no_records' });
  });

  it('when the server never answers, then unknown (timeout) within the lookup timeout', async () => {
    const started = Date.now();
    await expect(check('silent.test')).resolves.toEqual({ status: 'unknown', basis: 'timeout', ttlSeconds: null });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when the server answers SERVFAIL, then unknown', async () => {
    await expect(check('servfail.test')).resolves.toEqual({ status: 'unknown', basis: 'servfail', ttlSeconds: null });
  });

  it('when the MX target is a CNAME, or the domain itself is a CNAME of a domain with MX, then it accepts mail', async () => {
    await expect(check('cname-mx.test')).resolves.toMatchObject({ status: 'accepts_mail', basis: 'mx' });
    await expect(check('alias.test')).resolves.toMatchObject({ status: 'accepts_mail', basis: 'mx' });
  });

  it('when the domain is an IDN, then it is asked for as its punycode A-label', async () => {
    const ascii = asciiHostName('Müller.test');
    expect(ascii).toBe('xn--mller-kva.test');
    await expect(check(ascii)).resolves.toMatchObject({ status: 'accepts_mail', basis: 'mx' });
    expect(dns.queriesFor('xn--mller-kva.test')).toBeGreaterThan(0);
  });

  it('when no server listens at all, then unknown, not no_mail', async () => {
    const closed = await startFakeDnsServer();
    await closed.close();
    const nowhere = createDnsMailCheck({ servers: [closed.server], timeoutMs: 200, tries: 1 });
    await expect(nowhere('mx.test')).resolves.toMatchObject({ status: 'unknown' });
  });
});
