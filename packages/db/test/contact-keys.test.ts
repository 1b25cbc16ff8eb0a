import { normalizeLinkedinUrl, suppressionKeysOf, type Lead } from '@leadgen/domain';
import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, eraseSubject, leadContactKeys, migrate, subjectHolders, type Database } from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';
import { buildAccount, buildDeliveredJobs, buildLead } from '../../../test/factories';

// Erasure finds a subject's leads through the GIN index of their contact keys (prisma/functions/lead_contact_keys.sql,
// decision 043), not by reading every lead. The index's keys are coarse; what must hold is that they never miss a
// lead suppressionKeysOf (the rule a page commit uses) says holds the subject, whatever form the stored text takes.
// A database of this file's own: erasing puts the subject on the global suppression list, which every other file's
// page commits would then have to match against (they would answer needs_matches).
const scratch = scratchDatabaseUrls(
  `${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_contact_keys_${randomBytes(3).toString('hex')}`,
);
let db: Database;
beforeAll(async () => {
  await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
  db = createDatabase(scratch.runtimeUrl, { poolSize: 2 });
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await dropDatabase(scratch.ownerUrl);
});

const base = buildLead('google_maps', 0);
// Stored texts as upstreams and websites write them: cases, schemes, ports, paths, `www.`, trailing dots, Unicode
// hosts, national and international phones with extensions, profiles on country subdomains, percent-encoded or not.
const TRICKY: Lead[] = [
  {
    ...base,
    email: ' Jo.Doe@WWW.Acme-Dental.COM ',
    website: 'HTTPS://www.Acme-Dental.com:8443/contact?x=1#top',
    phone: '(512) 555-0100 ext. 23',
  },
  { ...base, email: 'info@münchen-zahnarzt.de', website: 'http://münchen-zahnarzt.de./', phone: '+49 89 1234567' },
  { ...base, email: null, website: 'acme-dental.com', phone: 'tel:+1-512-555-0199;ext=4' },
  { ...base, email: null, website: 'www.shop.example/path/', phone: '512.555.0142 x7' },
  {
    ...buildLead('linkedin', 1),
    socialProfiles: { facebook: null, instagram: null, linkedin: 'https://uk.linkedin.com/in/J%C3%B6rg-M%C3%BCller/details?trk=1' },
  } as Lead,
  {
    ...(buildLead('linkedin', 2) as Lead),
    socialProfiles: { facebook: null, instagram: null, linkedin: 'http://linkedin.com/pub/Jane-Doe/' },
  },
  {
    ...(buildLead('shopify', 3) as Lead),
    store: { domain: 'Store.Example.', country: 'US', platform: 'shopify' },
    contacts: [
      { name: 'Ann', title: 'Owner', email: 'ANN@store.example', phone: '+1 (415) 555-0123', linkedinUrl: 'linkedin.com/in/ann-s' },
    ],
  } as unknown as Lead,
];

// The function's first form (LANGUAGE sql, decision 043), kept as the reference its PL/pgSQL form must equal lead for
// lead (issue 32: the same keys at about a third of the CPU per insert). The index holds what the first form returned.
const FIRST_FORM = `
CREATE OR REPLACE FUNCTION "lead_contact_keys_first_form"(p_data JSONB) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(DISTINCT k) FILTER (WHERE k IS NOT NULL AND k !~ '^[edpl]:$'), '{}') FROM (
    -- emails, and the domain each is at
    SELECT 'e:' || lower(btrim(e)) AS k FROM unnest(ARRAY[p_data->>'email']
      || ARRAY(SELECT c->>'email' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) e
    UNION ALL
    SELECT 'd:' || regexp_replace(regexp_replace(lower(btrim(substring(e FROM '@([^@]*)$'))), '\\.$', ''), '^www\\.', '')
    FROM unnest(ARRAY[p_data->>'email']
      || ARRAY(SELECT c->>'email' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) e
    UNION ALL
    -- the website's and the store's host: no scheme, user, path, query, port, trailing dot or \`www.\`
    SELECT 'd:' || regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(lower(btrim(w)),
             '^[a-z][a-z0-9+.-]*://', ''), '^[^/?#]*@', ''), '[/?#\\\\].*$', ''), ':[0-9]*$', ''), '^(www\\.)?(.*?)\\.?$', '\\2')
    FROM unnest(ARRAY[p_data->>'website', p_data->'store'->>'domain']) w
    UNION ALL
    -- phones: the last 7 digits, of the whole text and of what comes before an extension
    SELECT 'p:' || right(regexp_replace(x, '[^0-9]', '', 'g'), 7) FROM unnest(ARRAY[p_data->>'phone']
      || ARRAY(SELECT c->>'phone' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) p,
      LATERAL unnest(ARRAY[p, substring(regexp_replace(p, '^\\s*tel:', '', 'i') FROM '^[^A-Za-z#;,]*')]) x
    UNION ALL
    -- LinkedIn profiles: the slug after /in/ or /pub/, as stored (percent-encoded or not)
    SELECT 'l:' || substring(lower(u) FROM '/(?:in|pub)/([^/?#]+)')
    FROM unnest(ARRAY[p_data->'socialProfiles'->>'linkedin', p_data->'person'->>'linkedinUrl']
      || ARRAY(SELECT c->>'linkedinUrl' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) u
  ) keys
$$;
`;

/** Leads of every source, the tricky texts, and shapes no upstream sends but a stored lead might hold. */
function everyShape(): unknown[] {
  const built = (['google_maps', 'linkedin', 'shopify'] as const).flatMap((source) => [0, 1, 7, 42].map((n) => buildLead(source, n)));
  return [
    ...built,
    ...TRICKY,
    { ...base, email: '', website: '', phone: '' },
    { ...base, email: 'no-at-sign', website: 'ftp://user:pw@Files.Example.com:21/x', phone: 'call us' },
    { ...base, email: 42, website: ['not', 'text'], phone: null },
    { ...base, contacts: 'not an array' },
    {
      ...base,
      contacts: [null, 'text', { email: null }, { phone: '+44 20 7946 0958 #12', linkedinUrl: 'https://www.linkedin.com/in/a-b/' }],
    },
    { ...base, person: { linkedinUrl: 'https://linkedin.com/IN/Someone' }, socialProfiles: null },
    {},
  ];
}

describe('contact keys', () => {
  it('when any lead is given, then the function returns the keys its first form returned, in the same order', async () => {
    // the owner's connection: the runtime role may not create functions
    const owner = createDatabase(scratch.ownerUrl, { poolSize: 1 });
    await owner.sql.query(FIRST_FORM).catch(async (error: unknown) => {
      await owner.$disconnect();
      throw error;
    });
    const leads = everyShape().map((lead) => JSON.stringify(lead));
    const { rows } = await owner.sql
      .query<{ lead: string; now: string[]; first: string[] }>(
        `SELECT d::text AS lead, lead_contact_keys(d) AS now, lead_contact_keys_first_form(d) AS first FROM unnest($1::jsonb[]) d`,
        [leads],
      )
      .finally(() => owner.$disconnect());
    expect(rows).toHaveLength(leads.length);
    expect(rows.filter((r) => r.now.length > 0).length).toBeGreaterThan(leads.length - 3);
    for (const row of rows) expect({ lead: row.lead, keys: row.now }).toEqual({ lead: row.lead, keys: row.first });
  });

  it('when a lead is stored in any of the forms upstreams write, then the index keys of each subject it holds find it', async () => {
    for (const lead of TRICKY) {
      const subjects = suppressionKeysOf(lead, 'US');
      expect(subjects.length).toBeGreaterThan(0);
      const { rows } = await db.sql.query<{ keys: string[] }>('SELECT lead_contact_keys($1::jsonb) AS keys', [JSON.stringify(lead)]);
      for (const subject of subjects) {
        const found = leadContactKeys(subject).some((k) => rows[0]!.keys.includes(k));
        expect({ lead: lead.website ?? lead.socialProfiles.linkedin, subject, found }).toMatchObject({ found: true });
      }
    }
  });

  it('when a subject is erased, then its leads go and a lead that only resembles it stays', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    const [jobId] = await buildDeliveredJobs(db, accountId, 1, 0);
    const leads: Lead[] = [
      TRICKY[0]!,
      { ...base, email: 'jo.doe@acme-dental.com.evil.example', website: null, phone: null }, // shares a substring, not the subject
      TRICKY[4]!,
    ];
    await db.sql.query(
      `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
       SELECT $1, (SELECT created_at FROM jobs WHERE id = $1), p - 1, 'k' || p, d FROM unnest($2::jsonb[]) WITH ORDINALITY AS x(d, p)`,
      [jobId, leads.map((l) => JSON.stringify(l))],
    );
    const holders = await subjectHolders(db, { kind: 'domain', value: 'acme-dental.com' }, new Date(0));
    expect(holders.filter((h) => h.accountId === accountId)).toEqual([
      { accountId, jobIds: [jobId], identifiers: { emails: [], phones: [], domains: ['acme-dental.com'] } },
    ]);
    const report = await eraseSubject(db, { kind: 'email', value: 'jo.doe@www.acme-dental.com' });
    expect(report.perAccount.find((a) => a.accountId === accountId)).toEqual({ accountId, leads: 1 });
    const profile = normalizeLinkedinUrl('https://uk.linkedin.com/in/J%C3%B6rg-M%C3%BCller')!;
    expect((await eraseSubject(db, { kind: 'linkedin', value: profile })).perAccount.find((a) => a.accountId === accountId)).toEqual({
      accountId,
      leads: 1,
    });
    const left = await db.sql.query<{ position: number }>('SELECT position FROM leads WHERE job_id = $1 ORDER BY position', [jobId]);
    expect(left.rows.map((r) => r.position)).toEqual([1]);
  });

  it('when the erasure looks for candidates, then PostgreSQL can answer from the index of contact keys', async () => {
    const client = await db.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT job_id, position FROM leads WHERE lead_contact_keys(data) && $1::text[]`,
        [leadContactKeys({ kind: 'domain', value: 'acme-dental.com' })],
      );
      // each partition of leads (decision 046) through its copy of leads_contact_keys_v1_idx
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Scan on leads_legacy_\w*contact_keys\w*/);
      expect(text).not.toMatch(/Seq Scan/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
