import { brokenSections, type SectionResults } from './broken-sections';
import type { LoadResult } from './load';

const none: SectionResults = {
  loads: [],
  knees: [],
  exports: [],
  batch: null,
  fairness: null,
  webhooks: null,
  enrichmentFound: null,
  verificationJobs: null,
  leadSizeLeads: null,
};
const load = (okTotal: number, errors = 0, firstError?: string): LoadResult => ({
  okInWindow: okTotal,
  okTotal,
  errors,
  firstError,
  windowMs: 1_000,
  totalMs: 1_000,
  latencies: Array.from({ length: okTotal }, () => 5),
});

describe('brokenSections', () => {
  it('when every section that ran measured something, then none is broken', () => {
    expect(
      brokenSections({
        ...none,
        loads: [{ section: 'sync1', side: 'service', load: load(10) }],
        knees: [
          {
            label: '1 account, 1 worker',
            steps: [
              { offered: 20, achieved: 0, late: 0, errors: 0, shed: 0, maxOutstanding: 1, topWait: '' },
              { offered: 40, achieved: 0, p50: 2_600, late: 0, errors: 0, shed: 0, maxOutstanding: 1, topWait: '' },
            ],
            knee: 0,
            worstJump: 1,
          },
        ],
        exports: [{ format: 'csv', leads: 200, side: 'service', bytes: 1, ms: 1, idleRss: 1, peakRss: 1 }],
        enrichmentFound: 48,
        verificationJobs: 10,
        leadSizeLeads: 600,
      }),
    ).toEqual([]);
  });

  it('when a side answered nothing as expected, or some of its requests failed, then its section is broken', () => {
    expect(
      brokenSections({
        ...none,
        loads: [
          { section: 'sync50', side: 'service', load: load(0, 7, 'sync generate answered 500') },
          { section: 'get', side: 'baseline', load: load(9, 1, 'GET /hello answered 503') },
        ],
      }),
    ).toEqual([
      'sync50 service: no request answered as expected (sync generate answered 500)',
      'get baseline: 1 requests failed (GET /hello answered 503)',
    ]);
  });

  it('when a knee series, an export, a batch, a fairness or webhook side, the corpus or verification measured nothing, then each is named', () => {
    const broken = brokenSections({
      knees: [
        {
          label: '10 accounts, 2 workers',
          steps: [{ offered: 20, achieved: 0, late: 5, errors: 5, shed: 0, maxOutstanding: 5, firstError: '500', topWait: '' }],
          knee: 0,
          worstJump: 1,
        },
      ],
      loads: [],
      exports: [{ format: 'jsonl', leads: 2_000, side: 'service', bytes: 0, ms: 1, idleRss: 1, peakRss: 1 }],
      batch: {
        children: 20,
        terminalMs: 1,
        status: 'FAILED',
        deliveredCount: 0,
        cpuMsPerChild: 1,
        idleP50: 5,
        duringP50: 6,
        duringRequests: 1,
      },
      fairness: [
        { label: 'fair release', cap: '', idle: [], backlog: [], backlog202: 0, released: null, refused: 'worker exited (code 78)' },
      ],
      webhooks: [
        {
          label: 'per-account cap',
          cap: '',
          idle: [],
          attack: [],
          idleLate: 3,
          attackLate: 0,
          pingsAccepted: 0,
          pingsSent: 0,
          jobs: 0,
          deliveries: null,
          peakInFlight: 0,
          tarpitRequests: 0,
        },
      ],
      enrichmentFound: 0,
      verificationJobs: 0,
      leadSizeLeads: 0,
    });
    expect(broken).toEqual([
      'knee 10 accounts, 2 workers: no request answered a 200 (500)',
      'export jsonl 2000 service: no byte downloaded',
      "batch: 0 leads delivered, status FAILED, other account's p50 idle 5 / during 6",
      'fair fair release: worker exited (code 78)',
      'webhook per-account cap: no idle ping arrived',
      'enrichment: no business address found in the corpus',
      'verify: no job measured',
      'leadsize: no sandbox lead measured',
    ]);
  });
  it('when the attacks section failed, or one of its phases measured nothing or broke, then it is broken', () => {
    const phase = (name: string, sync: number[], webhook: number[], failed?: string) => ({
      name,
      sync,
      webhook,
      late: 0,
      refused: {},
      attacker: (name === 'idle' ? {} : { 200: 2, 429: 30 }) as Record<string, number>,
      admitted: name === 'idle' ? null : 2,
      ...(failed ? { failed } : {}),
    });
    expect(brokenSections({ ...none, attacks: [phase('idle', [80, 90], [40]), phase('CSV exports', [700], [90])] })).toEqual([]);
    expect(
      brokenSections({
        ...none,
        attacks: [phase('idle', [80], [40]), phase('uploads', [], []), phase('tarpit', [400], [], 'no request reached the tarpit')],
      }),
    ).toEqual([
      'attacks uploads: the other account got no sync answer or no webhook (refused {})',
      'attacks tarpit: no request reached the tarpit',
    ]);
    expect(brokenSections({ ...none, attacks: 'attacks api exited (code 1)' })).toEqual(['attacks: attacks api exited (code 1)']);
  });

  it("when none of the attacker's requests in a phase was admitted, then that phase is broken, however its figures read", () => {
    const phase = (name: string, attacker: Record<string, number>, admitted: number | null) => ({
      name,
      sync: [85, 90],
      webhook: [40],
      late: 0,
      refused: {},
      attacker,
      admitted,
    });
    expect(
      brokenSections({
        ...none,
        attacks: [
          phase('idle', {}, null),
          phase('100k-entry uploads (2 loops)', { 429: 579 }, 0),
          phase('unknown-key flood (8 loops)', { 401: 60, 429: 310 }, 60),
          phase('CSV exports (3 loops)', { 200: 2, 429: 26 }, 2),
        ],
      }),
    ).toEqual(['attacks 100k-entry uploads (2 loops): none of the attacker\'s requests was admitted, nothing attacked ({"429":579})']);
  });
});
