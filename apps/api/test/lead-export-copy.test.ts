import {
  copyAccountLeads,
  copyAccountRange,
  copyResultSetLeads,
  createDatabase,
  pageResultSet,
  TextLines,
  type Database,
} from '@leadgen/db';
import type { Lead } from '@leadgen/domain';
import { csvRows } from '../src/lead-export';
import { presentLeadItemJson } from '../src/presenters/lead-presenter';
import { buildAccount, buildDeliveredJobs, buildLead } from '../../../test/factories';

// Downloads of a job's and of the account's leads are rendered by PostgreSQL (COPY, lead_csv_row.sql, decision 043);
// they must be the very bytes the API's own renderers write for the same leads (which batches still use).
let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => db.$disconnect());

const base = buildLead('google_maps', 7);
const LEADS: Lead[] = [
  base,
  {
    ...base,
    businessName: '=HYPERLINK("http://evil"), "quoted", comma, ;semicolon',
    email: '+cmd@x.example',
    phone: '-1 512',
    address: 'Line one\nline two, "and" \\ backslash',
    website: '@home',
    reviewScore: -3.25,
    categories: ['dentist', 'health; care', '=x'],
    socialProfiles: { facebook: '\tfb', instagram: null, linkedin: 'https://linkedin.com/in/ünïcödé' },
    emailVerification: {
      status: 'valid',
      checks: { roleAccount: true, freeProvider: false, disposable: true },
      verdict: 'deliverable',
      engine: 'dns',
    },
    provenance: { email: { sourceUrl: 'https://x.example/a?b=1,2' }, phone: null, note: 'a: b, "c"' },
    notice: {
      sources: ['https://x.example/a?b=1,2', 'Google Places; "x"'],
      retrievedAt: '2026-11-29T06:00:00.000Z',
      objectionUrl: 'https://leads.example/api/v1/privacy/objections',
    },
    retrievedAt: '2026-11-29T06:00:00.000Z',
    place: {
      placeId: 'ChIJ1',
      location: { lat: 30.2672, lng: -97.7431 },
      addressComponents: { street: '1 Congress', locality: 'Austin', postalCode: '78701', region: 'TX', countryCode: 'US' },
      reviewCount: 120,
      openingHours: { weekdayDescriptions: ['Monday: 9-5', 'Tuesday: closed'] },
      types: ['dentist', 'health'],
      businessStatus: 'OPERATIONAL',
      utcOffsetMinutes: -360,
    },
  } as unknown as Lead,
  { ...(buildLead('linkedin', 3) as Lead), reviewScore: null, categories: [] } as unknown as Lead,
  {
    ...(buildLead('shopify', 4) as Lead),
    contacts: [{ name: 'Ann "A"', title: 'Owner, CEO', email: 'ann@store.example', phone: null, linkedinUrl: null }],
  } as unknown as Lead,
];

/** 600 leads of every shape, a few hundred bytes each: PostgreSQL sends them in many blocks of COPY data. */
const MANY = Array.from({ length: 600 }, (_, i) => LEADS[i % LEADS.length]!);

/** A finished job of a new account, holding these leads in this order. */
async function jobWithLeads(leads: Lead[]): Promise<{ accountId: string; jobId: string }> {
  const { accountId } = await buildAccount(db, { credits: 0 });
  const [jobId] = await buildDeliveredJobs(db, accountId, 1, 0);
  await db.sql.query(
    `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
     SELECT $1, (SELECT created_at FROM jobs WHERE id = $1), p - 1, 'k' || p, d FROM unnest($2::jsonb[]) WITH ORDINALITY AS x(d, p)`,
    [jobId, leads.map((l) => JSON.stringify(l))],
  );
  return { accountId, jobId: jobId! };
}

describe('exports rendered by PostgreSQL', () => {
  it('when leads of every shape are exported by COPY, then CSV and JSON Lines are byte for byte what the API renders', async () => {
    const { accountId, jobId } = await jobWithLeads(LEADS);
    const rows = (await pageResultSet(db, accountId, 'job', jobId, -1, 100))!.leads;
    expect(rows).toHaveLength(LEADS.length);

    const csv = await copyResultSetLeads(db, accountId, 'job', jobId, -1, 100, 'csv');
    expect(Buffer.concat(csv.lines).toString('utf8')).toBe(csvRows(rows));
    const jsonl = await copyAccountLeads(
      db,
      accountId,
      { source: null, jobId: null, createdAfter: null, createdBefore: null },
      null,
      100,
      'jsonl',
    );
    expect(Buffer.concat(jsonl.lines).toString('utf8')).toBe(rows.map((r) => `${presentLeadItemJson(r)}\n`).join(''));
    expect(jsonl.last).toEqual({ jobCreatedAt: rows[0]!.jobCreatedAt, jobId, position: LEADS.length - 1 });
  });

  it("when a chunk spans many blocks of COPY data, then its lines are still byte for byte the API's, rows cut across blocks whole", async () => {
    // 600 leads of a few hundred bytes each: PostgreSQL sends the chunk in many blocks, and rows straddle their ends.
    const { accountId, jobId } = await jobWithLeads(MANY);
    const rows = (await pageResultSet(db, accountId, 'job', jobId, -1, 1000))!.leads;
    const jsonl = await copyResultSetLeads(db, accountId, 'job', jobId, -1, 1000, 'jsonl');
    const expected = rows.map((r) => `${presentLeadItemJson(r)}\n`).join('');
    expect(Buffer.byteLength(expected)).toBeGreaterThan(4 * 65_536);
    expect(jsonl.lines.length).toBeGreaterThan(1);
    expect(jsonl.rows).toBe(600);
    expect(jsonl.bytes).toBe(Buffer.byteLength(expected));
    expect(Buffer.concat(jsonl.lines).toString('utf8')).toBe(expected);
    const csv = await copyResultSetLeads(db, accountId, 'job', jobId, -1, 1000, 'csv');
    expect(Buffer.concat(csv.lines).toString('utf8')).toBe(csvRows(rows));
    expect(csv.last?.position).toBe(599);
  });

  it("when a range of jobs is read as JSON Lines (COPY text format), then its lines are the API's, escapes undone across blocks", async () => {
    // Leads whose JSON holds backslashes (quotes, a line break, a backslash): COPY's text format doubles each.
    const { accountId, jobId } = await jobWithLeads(MANY);
    const rows = (await pageResultSet(db, accountId, 'job', jobId, -1, 1000))!.leads;
    const job = { jobCreatedAt: rows[0]!.jobCreatedAt, jobId: jobId };
    const filter = { source: null, jobId: null, createdAfter: null, createdBefore: null };
    const range = await copyAccountRange(db, accountId, filter, null, job, 'jsonl');
    const expected = rows.map((r) => `${presentLeadItemJson(r)}\n`).join('');
    expect(expected).toContain('\\\\');
    expect(range.rows).toBe(600);
    expect(range.bytes).toBe(Buffer.byteLength(expected));
    expect(Buffer.concat(range.lines).toString('utf8')).toBe(expected);
    // From inside the job (a cursor): the lines after it.
    const after = await copyAccountRange(db, accountId, filter, { ...job, position: 596 }, job, 'jsonl');
    expect(after.rows).toBe(3);
    expect(Buffer.concat(after.lines).toString('utf8')).toBe(
      rows
        .slice(597)
        .map((r) => `${presentLeadItemJson(r)}\n`)
        .join(''),
    );
  });

  it('when COPY text data is cut anywhere, then TextLines undoes every escape and passes the rest as it came', () => {
    // COPY's text for the lines `a\b<TAB>c<LF>d`, `{"x":"q\"z"}` (JSON's escaped quote) and `<CR><BS><FF><VT>`.
    const text = 'a\\\\b\\tc\\nd\n{"x":"q\\\\"z"}\n\\r\\b\\f\\v\n';
    const decoded = 'a\\b\tc\nd\n{"x":"q\\"z"}\n\r\b\f\v\n';
    const data = Buffer.from(text, 'latin1');
    for (let cut = 0; cut <= data.length; cut++) {
      for (let second = cut; second <= data.length; second++) {
        const lines = new TextLines();
        lines.push(data.subarray(0, cut));
        lines.push(data.subarray(cut, second));
        lines.push(data.subarray(second));
        const chunk = lines.chunk(4);
        expect(Buffer.concat(chunk.lines).toString('latin1')).toBe(decoded);
        expect(chunk.bytes).toBe(decoded.length);
      }
    }
    const unfinished = new TextLines();
    unfinished.push(Buffer.from('ab\\'));
    expect(() => unfinished.chunk(1)).toThrow(/inside an escape/);
    expect(() => new TextLines().push(Buffer.from('\\x'))).toThrow(/escape/);
  });

  it('when an export is read in chunks, then each starts after the last line of the one before and together they are the whole', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    await buildDeliveredJobs(db, accountId, 3, 7);
    const filter = { source: null, jobId: null, createdAfter: null, createdBefore: null };
    const whole = await copyAccountLeads(db, accountId, filter, null, 1000, 'jsonl');
    expect(whole.rows).toBe(21);
    const parts: Buffer[] = [];
    let chunk = await copyAccountLeads(db, accountId, filter, null, 4, 'jsonl');
    while (chunk.rows > 0) {
      parts.push(...chunk.lines);
      chunk = await copyAccountLeads(db, accountId, filter, chunk.last, 4, 'jsonl');
    }
    expect(Buffer.concat(parts).equals(Buffer.concat(whole.lines))).toBe(true);
  });
});
