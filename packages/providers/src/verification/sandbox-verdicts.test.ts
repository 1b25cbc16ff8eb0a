import { loadConfig } from '@leadgen/config';
import { parseSandboxDirectives, type Lead, type ShopifyLead } from '@leadgen/domain';
import { closeProviders, createProviders } from '../registry';
import { countUpstreamCalls } from '../upstream/upstream-client';
import { collect, context, request } from '../../test/support/provider-search';

const leadsOf = async (
  source: 'google_maps' | 'shopify',
  overrides: Parameters<typeof request>[0],
  env: Record<string, string> = {},
): Promise<Lead[]> => {
  const providers = createProviders(loadConfig({ ...process.env, SANDBOX_PAGE_DELAY_MS: '0', ...env }), [source]);
  try {
    const pages = await collect(providers[source]!, request({ source, ...overrides }), context());
    return pages.flatMap((p) => p.leads.map((r) => r.lead));
  } finally {
    await closeProviders(providers);
  }
};

describe('the sandbox emits verdicts', () => {
  it('when a sandbox job runs, then every delivered address carries accepts_mail by the sandbox rule', async () => {
    const leads = await leadsOf('google_maps', { keyword: 'sandbox:only=20' });
    const withEmail = leads.filter((l) => l.email !== null);
    expect(withEmail.length).toBeGreaterThan(5);
    for (const lead of leads) {
      expect(lead.emailVerification === null).toBe(lead.email === null);
      if (lead.email !== null)
        expect(lead.emailVerification).toMatchObject({ status: 'accepts_mail', checks: { syntax: true, disposable: false } });
    }
  });

  it('when sandbox:mail=mixed, then every status comes out, and no no_mail address is a lead email', async () => {
    const leads = (await leadsOf('shopify', {
      category: 'apparel',
      state: 'DE',
      city: undefined,
      keyword: 'sandbox:only=30;mail=mixed',
    })) as ShopifyLead[];
    const statuses = new Set(leads.flatMap((l) => [l.emailVerification?.status, ...l.contacts.map((c) => c.emailVerification?.status)]));
    expect(statuses.has('accepts_mail') && statuses.has('no_mail') && statuses.has('unknown')).toBe(true);
    for (const lead of leads) {
      expect(lead.email ?? '').not.toMatch(/no-mail\.example$/);
      if (lead.email !== null) expect(lead.emailVerification?.status).not.toBe('no_mail');
    }
  });

  it('when shopify requires the email channel and every address takes no mail, then no store is handed over (nor billed)', async () => {
    const base = { category: 'apparel', state: 'DE', city: undefined, requiredChannels: ['email' as const] };
    expect((await leadsOf('shopify', { ...base, keyword: 'sandbox:only=20' })).length).toBe(20);
    expect(await leadsOf('shopify', { ...base, keyword: 'sandbox:only=20;mail=no_mail' })).toEqual([]);
  });

  it("when a sandbox job runs, then its addresses go through the mailbox stage to the sandbox's own engine: deliverable, engine sandbox, no engine call counted", async () => {
    const calls = new Map<string, number>();
    const leads = await countUpstreamCalls(calls, () => leadsOf('google_maps', { keyword: 'sandbox:only=10' }));
    // The sandbox's pages count as its own upstream (decision 035's dashboard); its mailbox engine is no call at all.
    expect(Object.fromEntries(calls)).toEqual({ sandbox: 1 }); // only=10: one page of 10
    const withEmail = leads.filter((l) => l.email !== null);
    expect(withEmail.length).toBeGreaterThan(2);
    for (const lead of withEmail)
      expect(lead.emailVerification).toMatchObject({
        status: 'accepts_mail',
        verdict: 'deliverable',
        engine: 'sandbox',
        reason: 'is_reachable=safe',
      });
  });

  it("when sandbox:mail names a mailbox verdict, then the sandbox's engine gives it: catch-all kept as the email, an undeliverable or risky one never the lead's email", async () => {
    const catchAll = await leadsOf('google_maps', { keyword: 'sandbox:only=10;mail=catch_all' });
    const kept = catchAll.filter((l) => l.email !== null);
    expect(kept.length).toBeGreaterThan(2);
    for (const lead of kept) expect(lead.emailVerification).toMatchObject({ verdict: 'catch_all', engine: 'sandbox' });
    for (const mail of ['undeliverable', 'risky']) {
      const leads = await leadsOf('google_maps', { keyword: `sandbox:only=10;mail=${mail}` });
      expect(leads.length).toBe(10);
      expect(leads.every((l) => l.email === null)).toBe(true);
    }
    // shopify's requiredChannels email counts deliverable and catch-all only (decision 034)
    const base = { category: 'apparel', state: 'DE', city: undefined, requiredChannels: ['email' as const] };
    expect((await leadsOf('shopify', { ...base, keyword: 'sandbox:only=10;mail=catch_all' })).length).toBe(10);
    expect(await leadsOf('shopify', { ...base, keyword: 'sandbox:only=10;mail=undeliverable' })).toEqual([]);
  });

  it('when EMAIL_VERIFICATION=off, then leads carry no verdict', async () => {
    const leads = await leadsOf('google_maps', { keyword: 'sandbox:only=10' }, { EMAIL_VERIFICATION: 'off' });
    expect(leads.some((l) => l.email !== null)).toBe(true);
    expect(leads.every((l) => l.emailVerification === undefined)).toBe(true);
  });

  it('when the mail directive names no status, then it is refused', () => {
    expect(parseSandboxDirectives('sandbox:mail=bouncy')).toMatchObject({ ok: false });
    expect(parseSandboxDirectives('sandbox:mail=unknown')).toEqual({ ok: true, directives: { mail: 'unknown' } });
  });
});
