// Mailbox verification's cost per job and its effect on time to terminal (decision 034), with
// Reacher's fake: the same shopify jobs (Store Leads' fake, 25 leads, two addresses a store) run
// through the registry's provider with EMAIL_VERIFIER=dns and =reacher, the second twice (a cold
// fleet cache, then warm). Reacher's fake answers after REACHER_LATENCY_MS, the upstream's pages
// after UPSTREAM_LATENCY_MS. Time to terminal is measured as the provider's time to the job's last
// lead (the page commits and settlement are the same on both sides). Self-contained: run it alone
// with `npx tsx scripts/bench/mailbox-verification.ts [jobs] [reacherLatencyMs]`, or in `npm run bench`
// (`--only mailbox`). Needs Redis (REDIS_URL); writes only keys under its own prefix, removed after.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '@leadgen/config';
import type { GenerationRequest } from '@leadgen/domain';
import { closeProviders, createProviders, finishedPage } from '@leadgen/providers';
import { ReacherFake } from '@leadgen/testing';
import { makeStores, startStoreLeadsFake } from '@leadgen/testing';
import { startFakeDnsServer } from '@leadgen/testing';

export interface MailboxSide {
  side: string;
  msPerJob: number;
  cpuMsPerJob: number;
  engineCallsPerJob: number;
  verdicts: Record<string, number>;
}

export interface MailboxVerificationCost {
  jobs: number;
  reacherLatencyMs: number;
  upstreamLatencyMs: number;
  sides: MailboxSide[];
}

const REQUEST: GenerationRequest = { source: 'shopify', category: 'apparel', state: 'US', maxResults: 25 };

/** Job `j`'s stores: new addresses per job (as new leads are), a third of the stores on a catch-all domain, one address in eight missing. */
function storesFor(j: number) {
  return makeStores(25, (i) => ({
    name: `job${j}-store${i}.com`,
    contact_info: [
      {
        type: 'email',
        value: i % 3 === 0 ? `owner${j}-${i}@alias.test` : i % 8 === 0 ? `nobody${j}-${i}@mx.test` : `owner${j}-${i}@mx.test`,
      },
      { type: 'email', value: `sales${j}-${i}@mx.test` },
    ],
  }));
}

export async function measureMailboxVerification(
  jobs: number,
  reacherLatencyMs = 300,
  upstreamLatencyMs = 200,
): Promise<MailboxVerificationCost> {
  const [dns, reacher, stores] = await Promise.all([startFakeDnsServer(), new ReacherFake().start(), startStoreLeadsFake('bench-key')]);
  reacher.latencyMs = reacherLatencyMs;
  reacher.catchAllDomains.add('alias.test');
  stores.latencyMs = upstreamLatencyMs;
  const prefix = `bench-mailbox-${randomBytes(4).toString('hex')}`;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const sides: MailboxSide[] = [];
  try {
    const run = async (side: string, engine: 'dns' | 'reacher', jobOffset: number) => {
      const config = loadConfig({
        ...process.env,
        QUEUE_PREFIX: prefix,
        STORELEADS_API_KEY: 'bench-key',
        STORELEADS_BASE_URL: stores.url,
        PDL_API_KEY: '',
        DNS_SERVERS: dns.server,
        EMAIL_VERIFIER: engine,
        REACHER_URL: reacher.url,
        REACHER_RATE_PER_MIN: '100000',
      });
      const noCrawl = {
        enrich: () => Promise.resolve({ emails: [], socialProfiles: { facebook: null, instagram: null, linkedin: null } }),
      };
      const providers = createProviders(config, ['shopify'], { redis, enricher: noCrawl });
      const verdicts: Record<string, number> = {};
      const callsBefore = reacher.checks().length;
      let wallMs = 0;
      const cpuBefore = process.cpuUsage();
      for (let j = 0; j < jobs; j++) {
        stores.stores = storesFor(jobOffset + j);
        const started = performance.now();
        let delivered = 0;
        for await (const raw of providers.shopify!.search(REQUEST, {
          signal: new AbortController().signal,
          cursor: null,
          deadline: Date.now() + 120_000,
        })) {
          const page = await finishedPage(raw, new AbortController().signal);
          delivered += page.leads.length;
          for (const { lead } of page.leads) {
            const v = lead.emailVerification?.verdict ?? 'none';
            verdicts[v] = (verdicts[v] ?? 0) + 1;
          }
          if (delivered >= REQUEST.maxResults) break;
        }
        wallMs += performance.now() - started;
      }
      const cpu = process.cpuUsage(cpuBefore);
      await closeProviders(providers);
      sides.push({
        side,
        msPerJob: wallMs / jobs,
        cpuMsPerJob: (cpu.user + cpu.system) / 1000 / jobs,
        engineCallsPerJob: (reacher.checks().length - callsBefore) / jobs,
        verdicts,
      });
    };
    // Warm-up, not reported: the JIT, the kept lists, the DNS cache of the fake domains.
    await run('warm-up', 'dns', 10_000);
    sides.length = 0;
    await run('dns (no engine)', 'dns', 0);
    await run('reacher, cold cache', 'reacher', 0);
    await run('reacher, warm cache (same addresses)', 'reacher', 0);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await Promise.all([dns.close(), reacher.close(), stores.close()]);
  }
  return { jobs, reacherLatencyMs, upstreamLatencyMs, sides };
}

export function mailboxReport(cost: MailboxVerificationCost): string[] {
  const lines = [
    `mailbox verification, shopify via Store Leads' fake (${cost.jobs} jobs of 25 leads; Reacher's fake answers in ${cost.reacherLatencyMs} ms, upstream pages in ${cost.upstreamLatencyMs} ms):`,
  ];
  const base = cost.sides[0]!;
  for (const s of cost.sides) {
    const verdicts = Object.entries(s.verdicts)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');
    lines.push(
      `  ${s.side}: ${s.msPerJob.toFixed(0)} ms per job (+${(s.msPerJob - base.msPerJob).toFixed(0)} ms), CPU ${s.cpuMsPerJob.toFixed(1)} ms, engine calls ${s.engineCallsPerJob.toFixed(1)} per job; lead emails: ${verdicts}`,
    );
  }
  return lines;
}

if (require.main === module) {
  const jobs = Number(process.argv[2] ?? 5);
  const latency = Number(process.argv[3] ?? 300);
  measureMailboxVerification(jobs, latency)
    .then((cost) => {
      for (const line of mailboxReport(cost)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
