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

describe('contact keys', () => {
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
