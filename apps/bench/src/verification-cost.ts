// The email verification's CPU on the worker's hot path (sandbox): the same 25-lead sandbox job
// run through the registry's providers with EMAIL_VERIFICATION on and off, in this process,
// alternating, CPU time per job. The job's page commits and settlement (PostgreSQL) are not in the
// denominator, so the ratio is an upper bound of what verification adds to a whole job.
import { loadConfig } from '@leadgen/config';
import type { GenerationRequest } from '@leadgen/domain';
import { closeProviders, createProviders, finishedPage } from '@leadgen/providers';

export interface VerificationCost {
  jobs: number;
  offCpuMsPerJob: number;
  onCpuMsPerJob: number;
  /** on / off */
  ratio: number;
  /** addresses given a verdict per verified job */
  verdictsPerJob: number;
}

const REQUESTS: GenerationRequest[] = [
  { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
  { source: 'shopify', category: 'apparel', state: 'DE', maxResults: 25, decisionMakerTitles: ['owner', 'founder'] },
];

async function runJobs(on: boolean, jobs: number): Promise<{ cpuMs: number; verdicts: number }> {
  const config = loadConfig({
    ...process.env,
    SANDBOX_PAGE_DELAY_MS: '0',
    EMAIL_VERIFICATION: on ? 'on' : 'off',
    GOOGLE_PLACES_API_KEY: '',
    STORELEADS_API_KEY: '',
    PDL_API_KEY: '',
  });
  const providers = createProviders(config, ['google_maps', 'shopify']);
  let verdicts = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < jobs; i++) {
    const base = REQUESTS[i % REQUESTS.length]!;
    // A new place per job: every job's leads are new records, as in production.
    const request = { ...base, city: `Town ${i}` };
    const provider = providers[request.source]!;
    let delivered = 0;
    for await (const raw of provider.search(request, {
      signal: new AbortController().signal,
      cursor: null,
      deadline: Date.now() + 60_000,
    })) {
      const page = await finishedPage(raw, new AbortController().signal);
      delivered += page.leads.length;
      for (const { lead } of page.leads) if (lead.emailVerification) verdicts += 1;
      if (delivered >= request.maxResults) break;
    }
  }
  const used = process.cpuUsage(before);
  await closeProviders(providers);
  return { cpuMs: (used.user + used.system) / 1000, verdicts };
}

export async function measureVerificationCost(jobsPerSide: number, rounds: number): Promise<VerificationCost> {
  await runJobs(true, 20); // warm: the kept lists load, the JIT settles
  await runJobs(false, 20);
  let off = 0;
  let on = 0;
  let verdicts = 0;
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first, so a drift in the machine's load favours neither.
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const side of order) {
      const run = await runJobs(side, jobsPerSide);
      if (side) {
        on += run.cpuMs;
        verdicts += run.verdicts;
      } else off += run.cpuMs;
    }
  }
  const jobs = jobsPerSide * rounds;
  return { jobs, offCpuMsPerJob: off / jobs, onCpuMsPerJob: on / jobs, ratio: on / off, verdictsPerJob: verdicts / jobs };
}
