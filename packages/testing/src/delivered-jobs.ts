import type { Database } from '@leadgen/db';

/**
 * `jobs` finished google_maps jobs of `perJob` leads each for the account, written in two statements
 * (for listings and exports of many leads, without running the sandbox for them): shaped like the
 * sandbox's records, but neither reserved nor billed. Returns the job ids, oldest first.
 */
export async function buildDeliveredJobs(db: Database, accountId: string, jobs: number, perJob: number): Promise<string[]> {
  const { rows } = await db.sql.query<{ id: string }>(
    `INSERT INTO jobs (id, account_id, result_set_id, source, status, request, requested_count, delivered_count, provider,
                       credits_reserved, credits_charged, created_at, started_at, finished_at)
     SELECT 'job_' || t.tag || lpad(g::text, 12, '0'), $1, 'rs_' || t.tag || lpad(g::text, 12, '0'), 'google_maps', 'COMPLETE',
            '{"source":"google_maps","category":"dentist","state":"US","maxResults":100}'::jsonb, $3, $3, 'sandbox', 0, 0,
            now() - interval '1 day' + g * interval '1 second', now(), now()
     FROM generate_series(1, $2::int) g, (SELECT substr(md5(random()::text), 1, 12) AS tag) t
     RETURNING id`,
    [accountId, jobs, perJob],
  );
  const ids = rows.map((r) => r.id).sort();
  await db.sql.query(
    `INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
     SELECT j.id, j.created_at, p, 'place-' || p, jsonb_build_object(
       'source', 'google_maps', 'businessName', 'Dental Studio ' || p, 'email', 'info' || p || '@studio.example',
       'phone', '+1 512-555-' || lpad(p::text, 4, '0'), 'address', p || ' Congress Ave, Austin, TX 78701',
       'website', 'https://studio' || p || '.example', 'reviewScore', 4.5, 'categories', jsonb_build_array('dentist', 'health'),
       'socialProfiles', jsonb_build_object('facebook', 'https://facebook.com/studio' || p, 'instagram', null, 'linkedin', null))
     FROM jobs j, generate_series(0, $2::int - 1) p WHERE j.id = ANY ($1::text[])`,
    [ids, perJob],
  );
  return ids;
}
