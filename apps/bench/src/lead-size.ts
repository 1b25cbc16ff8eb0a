// The `leadsize` section of `npm run bench` (`npm run bench:lead-size` runs it alone): what decision 038's complete
// lead costs per lead and per job, beside its floor, the lead as it was before. The same sandbox jobs (25 leads,
// each source) with every field, beside the same leads without the fields decision 038 added (no
// place/person/store details, retrievedAt or provenance): bytes of the lead's JSON, bytes PostgreSQL stores
// (pg_column_size of the jsonb), and the WAL of inserting one job's leads into a copy of the `leads` table
// (EXPLAIN (ANALYZE, WAL): the statement's own WAL, unaffected by other sessions on a shared server). The rest of
// a page commit (the job row, account_deliveries) does not depend on the lead's size.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import type { GenerationRequest, Lead } from '@leadgen/domain';
import { closeProviders, createProviders } from '@leadgen/providers';

const REQUESTS: GenerationRequest[] = [
  { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
  { source: 'linkedin', category: 'software', state: 'US', maxResults: 25 },
  { source: 'shopify', category: 'apparel', state: 'DE', maxResults: 25, decisionMakerTitles: ['owner', 'founder'] },
];
const PERSON_ADDED = ['workEmail', 'emailType', 'phoneNumbers', 'locationParts', 'jobStartDate', 'seniorityLevels', 'company', 'skills'];
const STORE_ADDED = [
  'merchantName',
  'plan',
  'city',
  'region',
  'categoryPaths',
  'estimatedMonthlySales',
  'employeeCount',
  'productCount',
  'rank',
  'technologies',
  'apps',
  'createdAt',
];

/** The lead as it was before decision 038. */
function before(lead: Lead): unknown {
  const copy = JSON.parse(JSON.stringify(lead)) as Record<string, unknown>;
  delete copy.place;
  delete copy.retrievedAt;
  delete copy.provenance;
  const person = copy.person as Record<string, unknown> | undefined;
  if (person) for (const key of PERSON_ADDED) delete person[key];
  const store = copy.store as Record<string, unknown> | undefined;
  if (store) for (const key of STORE_ADDED) delete store[key];
  for (const contact of (copy.contacts as Array<Record<string, unknown>> | undefined) ?? []) delete contact.provenance;
  return copy;
}

async function jobsOf(request: GenerationRequest, count: number): Promise<Array<Array<{ key: string; lead: Lead }>>> {
  const config = loadConfig({
    ...process.env,
    SANDBOX_PAGE_DELAY_MS: '0',
    GOOGLE_PLACES_API_KEY: '',
    STORELEADS_API_KEY: '',
    PDL_API_KEY: '',
  });
  const providers = createProviders(config, [request.source]);
  const jobs: Array<Array<{ key: string; lead: Lead }>> = [];
  try {
    for (let i = 0; i < count; i++) {
      const leads: Array<{ key: string; lead: Lead }> = [];
      const controller = new AbortController();
      for await (const page of providers[request.source]!.search(
        { ...request, city: `Town ${i}` },
        { signal: controller.signal, cursor: null, deadline: Date.now() + 60_000 },
      )) {
        leads.push(...page.leads.map((l) => ({ key: l.dedupKey, lead: l.lead })));
        if (leads.length >= request.maxResults) break;
      }
      jobs.push(leads.slice(0, request.maxResults));
    }
  } finally {
    await closeProviders(providers);
  }
  return jobs;
}

async function walOf(pg: Client, table: string, jobId: string, leads: Array<{ key: string; data: unknown }>): Promise<number> {
  const items = JSON.stringify(leads.map((l, i) => ({ k: l.key, d: l.data, n: i })));
  const { rows } = await pg.query<{ 'QUERY PLAN': Array<{ Plan: { 'WAL Bytes': number } }> }>(
    `EXPLAIN (ANALYZE, WAL, FORMAT JSON) INSERT INTO ${table} (job_id, job_created_at, position, dedup_key, data)
     SELECT $1, now(), (x->>'n')::int, x->>'k', x->'d' FROM jsonb_array_elements($2::jsonb) x`,
    [jobId, items],
  );
  return rows[0]!['QUERY PLAN'][0]!.Plan['WAL Bytes'];
}

export interface LeadSizeRow {
  source: string;
  jobs: number;
  leads: number;
  /** per lead: the floor (the lead before decision 038) and now */
  jsonBefore: number;
  jsonAfter: number;
  storedBefore: number;
  storedAfter: number;
  /** per job of 25 leads */
  walBefore: number;
  walAfter: number;
}

/** `jobs` sandbox jobs per source, in a scratch copy of `leads` in `databaseUrl` (a migrated database), dropped after. */
export async function measureLeadSize(databaseUrl: string, jobs: number): Promise<LeadSizeRow[]> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const table = `bench_lead_size_${randomBytes(4).toString('hex')}`;
  await pg.query(`CREATE TABLE ${table} (LIKE leads INCLUDING DEFAULTS INCLUDING INDEXES)`);
  const rows: LeadSizeRow[] = [];
  try {
    for (const request of REQUESTS) {
      const made = await jobsOf(request, jobs);
      const sums = { jsonBefore: 0, jsonAfter: 0, walBefore: 0, walAfter: 0, leads: 0 };
      for (const [j, job] of made.entries()) {
        const old = job.map((l) => ({ key: l.key, data: before(l.lead) }));
        const now = job.map((l) => ({ key: l.key, data: l.lead as unknown }));
        sums.leads += job.length;
        sums.jsonBefore += old.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l.data)), 0);
        sums.jsonAfter += now.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l.data)), 0);
        // alternating, so a checkpoint's full-page writes fall on both sides alike
        const [a, b] = j % 2 === 0 ? [old, now] : [now, old];
        const walA = await walOf(pg, table, `before-${request.source}-${j}-${j % 2}`, a);
        const walB = await walOf(pg, table, `after-${request.source}-${j}-${j % 2}`, b);
        sums.walBefore += j % 2 === 0 ? walA : walB;
        sums.walAfter += j % 2 === 0 ? walB : walA;
      }
      const stored = await pg.query<{ before: string; after: string }>(
        `SELECT sum(pg_column_size(data)) FILTER (WHERE job_id LIKE 'before-' || $1 || '%') AS before,
                sum(pg_column_size(data)) FILTER (WHERE job_id LIKE 'after-' || $1 || '%') AS after FROM ${table}`,
        [request.source],
      );
      const per = (n: number) => (sums.leads === 0 ? 0 : Math.round(n / sums.leads));
      const perJob = (n: number) => (made.length === 0 ? 0 : Math.round(n / made.length));
      rows.push({
        source: request.source,
        jobs: made.length,
        leads: sums.leads,
        jsonBefore: per(sums.jsonBefore),
        jsonAfter: per(sums.jsonAfter),
        storedBefore: per(Number(stored.rows[0]!.before)),
        storedAfter: per(Number(stored.rows[0]!.after)),
        walBefore: perJob(sums.walBefore),
        walAfter: perJob(sums.walAfter),
      });
    }
  } finally {
    await pg.query(`DROP TABLE ${table}`);
    await pg.end();
  }
  return rows;
}

/** The section's lines: each figure beside its floor (the lead before decision 038) and their ratio. */
export function leadSizeTable(rows: LeadSizeRow[]): string[] {
  const cell = (now: number, floor: number) => `${now} (floor ${floor}, ${floor === 0 ? '-' : (now / floor).toFixed(2)}x)`.padEnd(28);
  return [
    `  ${'source'.padEnd(12)} ${'JSON B/lead'.padEnd(28)} ${'stored B/lead'.padEnd(28)} WAL B per 25-lead job`,
    ...rows.map(
      (r) =>
        `  ${r.source.padEnd(12)} ${cell(r.jsonAfter, r.jsonBefore)} ${cell(r.storedAfter, r.storedBefore)} ${cell(r.walAfter, r.walBefore).trimEnd()}`,
    ),
  ];
}
