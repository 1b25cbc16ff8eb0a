-- lead_contact_keys: the contact values a stored lead holds, coarsely normalised, as the keys of the GIN index
-- leads_contact_keys_v1_idx (created below), so a subject's erasure and its objection's notices find the leads
-- that hold it through the index instead of reading every lead of every account (`data::text ILIKE`: 2.3 s at 1M
-- leads, minutes at 100M; issue 39, decision 043). Keys: `e:<email>`, `d:<domain>` (the website's, the store's
-- and every email's), `p:<last 7 digits>` of each phone, `l:<slug>` of each LinkedIn profile, all in lower case.
-- They are candidates only: packages/db/src/subject-erasure.ts confirms each lead with suppressionKeysOf, the rule a
-- page commit uses, and asks for every form the stored text may take (a punycode domain's Unicode form, a slug's
-- percent-encoding), so the coarse forms here must only never miss what that rule finds.
-- Called by: the index (on every insert into leads: commit_page's INSERT pays one call per lead) and the
--   erasure's query, `lead_contact_keys(l.data) && $1`, which PostgreSQL answers from the index.
-- Locks: the function, nothing. This file, when applied, creates the index if it is missing: a plain CREATE INDEX
--   in db:migrate's transaction, which holds writes to leads for the build (seconds per million leads). On a big
--   database build it first with CREATE INDEX CONCURRENTLY (docs/operations.md, "Indexes built online").
-- Guarantees: IMMUTABLE (the index relies on it). Changing what it returns for a stored lead needs the index built
--   again: such a change renames the index (v1 -> v2) and drops the old one here, or the old index lies.

CREATE OR REPLACE FUNCTION "lead_contact_keys"(p_data JSONB) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(DISTINCT k) FILTER (WHERE k IS NOT NULL AND k !~ '^[edpl]:$'), '{}') FROM (
    -- emails, and the domain each is at
    SELECT 'e:' || lower(btrim(e)) AS k FROM unnest(ARRAY[p_data->>'email']
      || ARRAY(SELECT c->>'email' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) e
    UNION ALL
    SELECT 'd:' || regexp_replace(regexp_replace(lower(btrim(substring(e FROM '@([^@]*)$'))), '\.$', ''), '^www\.', '')
    FROM unnest(ARRAY[p_data->>'email']
      || ARRAY(SELECT c->>'email' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) e
    UNION ALL
    -- the website's and the store's host: no scheme, user, path, query, port, trailing dot or `www.`
    SELECT 'd:' || regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(lower(btrim(w)),
             '^[a-z][a-z0-9+.-]*://', ''), '^[^/?#]*@', ''), '[/?#\\].*$', ''), ':[0-9]*$', ''), '^(www\.)?(.*?)\.?$', '\2')
    FROM unnest(ARRAY[p_data->>'website', p_data->'store'->>'domain']) w
    UNION ALL
    -- phones: the last 7 digits, of the whole text and of what comes before an extension
    SELECT 'p:' || right(regexp_replace(x, '[^0-9]', '', 'g'), 7) FROM unnest(ARRAY[p_data->>'phone']
      || ARRAY(SELECT c->>'phone' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) p,
      LATERAL unnest(ARRAY[p, substring(regexp_replace(p, '^\s*tel:', '', 'i') FROM '^[^A-Za-z#;,]*')]) x
    UNION ALL
    -- LinkedIn profiles: the slug after /in/ or /pub/, as stored (percent-encoded or not)
    SELECT 'l:' || substring(lower(u) FROM '/(?:in|pub)/([^/?#]+)')
    FROM unnest(ARRAY[p_data->'socialProfiles'->>'linkedin', p_data->'person'->>'linkedinUrl']
      || ARRAY(SELECT c->>'linkedinUrl' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END) c)) u
  ) keys
$$;

CREATE INDEX IF NOT EXISTS "leads_contact_keys_v1_idx" ON "leads" USING gin ("lead_contact_keys"("data"));
