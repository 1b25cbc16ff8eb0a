import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { GoogleMapsLead } from '@leadgen/domain';
import { enrichLeads, type WebsiteEnricherLike } from './enrich-leads';

function lead(overrides: Partial<GoogleMapsLead> = {}): GoogleMapsLead {
  return {
    source: 'google_maps',
    businessName: 'Café Rosa',
    email: null,
    phone: null,
    address: '',
    website: 'https://cafe-rosa.example',
    reviewScore: null,
    categories: [],
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
    ...overrides,
  };
}

const site: WebsiteEnricherLike = {
  enrich: async (_url, _signal, hints) => ({
    emails: [hints?.businessName === 'Café Rosa' ? 'cafe.rosa@gmail.com' : 'other@gmail.com'],
    socialProfiles: { facebook: 'https://www.facebook.com/caferosa', instagram: null, linkedin: null },
    provenance: {
      emailSource: 'contact page',
      emailBasis: 'contact block',
      pagesVisited: 3,
      profileSources: { facebook: 'home page', instagram: null, linkedin: null },
      sources: {
        emails: {
          'cafe.rosa@gmail.com': { sourceUrl: 'https://cafe-rosa.example/kontakt', basis: 'contact block' },
          'other@gmail.com': { sourceUrl: 'https://other.example/', basis: 'free mailbox' },
        },
        facebook: { sourceUrl: 'https://cafe-rosa.example/', basis: 'Page Plugin' },
        instagram: null,
        linkedin: null,
      },
    },
    websiteStatus: 'ok' as const,
  }),
};

describe('enrichLeads provenance', () => {
  it('when the website fills a gap, then the lead says which page and why, and what the upstream gave stays "upstream"', async () => {
    const leads = [
      lead(),
      lead({
        email: 'owner@cafe-rosa.example',
        socialProfiles: { facebook: 'https://www.facebook.com/upstream', instagram: null, linkedin: null },
      }),
    ];
    await enrichLeads(leads, { enricher: site, concurrency: 2, deadlineMarginMs: 0 }, new AbortController().signal, Date.now() + 5_000);
    expect(leads[0]).toMatchObject({
      email: 'cafe.rosa@gmail.com',
      enrichment: {
        emailSource: 'contact page',
        emailBasis: 'contact block',
        pagesVisited: 3,
        profileSources: { facebook: 'home page', instagram: null, linkedin: null },
        websiteStatus: 'ok',
        // the exact page and the evidence of each value the website filled
        sources: {
          email: { sourceUrl: 'https://cafe-rosa.example/kontakt', basis: 'contact block' },
          facebook: { sourceUrl: 'https://cafe-rosa.example/', basis: 'Page Plugin' },
          instagram: null,
          linkedin: null,
        },
      },
    });
    expect(leads[1]).toMatchObject({
      email: 'owner@cafe-rosa.example',
      enrichment: {
        emailSource: 'upstream',
        emailBasis: null,
        profileSources: { facebook: 'upstream', instagram: null, linkedin: null },
        sources: { email: null, facebook: null, instagram: null, linkedin: null },
      },
    });
  });
});

describe('enrichLeads and the lead provenance (decision 038 filled from decision 040)', () => {
  it('when the website fills the email and a profile, then their provenance entries carry the crawler’s page and basis, and the upstream’s stay', async () => {
    const upstreamPhone = {
      origin: 'upstream' as const,
      upstream: 'google_places',
      sourceUrl: 'https://maps.google.com/?cid=1',
      retrievedAt: '2026-11-29T00:00:00.000Z',
    };
    const filled = lead({
      phone: '+49 30 1234567',
      provenance: { email: null, phone: upstreamPhone, website: null, socialProfiles: { facebook: null, instagram: null, linkedin: null } },
    });
    const before = Date.now();
    await enrichLeads([filled], { enricher: site, concurrency: 1, deadlineMarginMs: 0 }, new AbortController().signal, Date.now() + 5_000);
    const provenance = filled.provenance!;
    expect(provenance.email).toEqual({
      origin: 'website',
      upstream: null,
      sourceUrl: 'https://cafe-rosa.example/kontakt',
      basis: 'contact block',
      retrievedAt: expect.any(String),
    });
    expect(Date.parse(provenance.email!.retrievedAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(provenance.socialProfiles).toEqual({
      facebook: {
        origin: 'website',
        upstream: null,
        sourceUrl: 'https://cafe-rosa.example/',
        basis: 'Page Plugin',
        retrievedAt: expect.any(String),
      },
      instagram: null,
      linkedin: null,
    });
    // what the upstream answered keeps its own entry
    expect(provenance.phone).toEqual(upstreamPhone);
  });

  it('when the upstream gave the email, then the website’s address neither replaces it nor its provenance', async () => {
    const upstreamEmail = {
      origin: 'upstream' as const,
      upstream: 'google_places',
      sourceUrl: null,
      retrievedAt: '2026-11-29T00:00:00.000Z',
    };
    const kept = lead({
      email: 'owner@cafe-rosa.example',
      provenance: { email: upstreamEmail, phone: null, website: null, socialProfiles: { facebook: null, instagram: null, linkedin: null } },
    });
    await enrichLeads([kept], { enricher: site, concurrency: 1, deadlineMarginMs: 0 }, new AbortController().signal, Date.now() + 5_000);
    expect(kept.email).toBe('owner@cafe-rosa.example');
    expect(kept.provenance!.email).toEqual(upstreamEmail);
    expect(kept.provenance!.socialProfiles.facebook).toMatchObject({ origin: 'website', sourceUrl: 'https://cafe-rosa.example/' });
  });
});

describe('enrichLeads concurrency and deadline', () => {
  /** An enricher whose visits end only when the test lets them (or their signal aborts). */
  function heldEnricher() {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = { running: 0, most: 0, started: [] as string[], release: () => release() };
    const enricher: WebsiteEnricherLike = {
      enrich: async (url, signal) => {
        held.started.push(url);
        held.running++;
        held.most = Math.max(held.most, held.running);
        try {
          await new Promise<void>((resolve, reject) => {
            void gate.then(resolve);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        } finally {
          held.running--;
        }
        return { emails: [`hello@${new URL(url).hostname}`], socialProfiles: { facebook: null, instagram: null, linkedin: null } };
      },
    };
    return { held, enricher };
  }
  const sites = (n: number) =>
    Array.from({ length: n }, (_, i) => lead({ businessName: `Shop ${i}`, website: `https://shop-${i}.example` }));

  it('when more leads than the concurrency need a visit, then at most that many are visited at once and all are enriched', async () => {
    const { held, enricher } = heldEnricher();
    const leads = sites(5);
    const done = enrichLeads(leads, { enricher, concurrency: 2, deadlineMarginMs: 0 }, new AbortController().signal, Date.now() + 5_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held.started).toHaveLength(2);
    held.release();
    await done;
    expect(held.most).toBe(2);
    expect(leads.map((l) => l.email)).toEqual(leads.map((_, i) => `hello@shop-${i}.example`));
  });

  it('when the deadline margin is reached, then running visits are cut off, waiting leads are not visited, and every lead is handed over as it was', async () => {
    const { held, enricher } = heldEnricher();
    const leads = sites(4);
    const started = Date.now();
    await enrichLeads(leads, { enricher, concurrency: 1, deadlineMarginMs: 100 }, new AbortController().signal, Date.now() + 250);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(held.started).toEqual(['https://shop-0.example']);
    expect(leads.map((l) => l.email)).toEqual([null, null, null, null]);
    expect(leads.every((l) => l.enrichment === undefined)).toBe(true);
  });

  it('when the job aborts, then enrichLeads rejects with the signal reason once the visits have stopped', async () => {
    const { held, enricher } = heldEnricher();
    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 30);
    await expect(
      enrichLeads(sites(3), { enricher, concurrency: 1, deadlineMarginMs: 0 }, controller.signal, Date.now() + 5_000),
    ).rejects.toBe(reason);
    expect(held.running).toBe(0);
    expect(held.started).toHaveLength(1);
  });
});

describe('enrichLeads on a full page', () => {
  it('when 25 leads wait for 2 slots on one job signal, then Node prints no listener-leak warning (a worker’s stderr stays JSON)', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../test/fixtures/enrich-full-page.ts')], {
      env: process.env,
      encoding: 'utf8',
    });
    expect(run.stdout.trim()).toBe('25 enriched');
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
  });
});
