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
-- Cost: PL/pgSQL walking the lead once (each expression on plpgsql's fast path, one query for the sorted distinct
--   keys): about a third of the CPU of the first form, a LANGUAGE sql function of UNION ALLed unnests and
--   jsonb_array_elements, which no insert could inline (issue 32: about 3 ms of PostgreSQL's CPU per 25-lead
--   commit went to it). It returns the same array for every lead: packages/db/test/contact-keys.test.ts keeps the
--   first form and compares the two.
-- Guarantees: IMMUTABLE (the index relies on it). Changing what it returns for a stored lead needs the index built
--   again: such a change renames the index (v1 -> v2) and drops the old one here, or the old index lies.

CREATE OR REPLACE FUNCTION "lead_contact_keys"(p_data JSONB) RETURNS TEXT[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v_contacts JSONB := CASE WHEN jsonb_typeof(p_data->'contacts') = 'array' THEN p_data->'contacts' ELSE '[]' END;
  v_emails TEXT[] := ARRAY[p_data->>'email'];
  v_phones TEXT[] := ARRAY[p_data->>'phone'];
  v_profiles TEXT[] := ARRAY[p_data->'socialProfiles'->>'linkedin', p_data->'person'->>'linkedinUrl'];
  v_keys TEXT[] := '{}';
  v_contact JSONB;
  v TEXT;
BEGIN
  -- every contact's email, phone and LinkedIn profile beside the lead's own
  FOR i IN 0 .. jsonb_array_length(v_contacts) - 1 LOOP
    v_contact := v_contacts->i;
    v_emails := v_emails || (v_contact->>'email');
    v_phones := v_phones || (v_contact->>'phone');
    v_profiles := v_profiles || (v_contact->>'linkedinUrl');
  END LOOP;
  -- emails, and the domain each is at
  FOREACH v IN ARRAY v_emails LOOP
    CONTINUE WHEN v IS NULL;
    v_keys := v_keys || ('e:' || lower(btrim(v)))
      || ('d:' || regexp_replace(regexp_replace(lower(btrim(substring(v FROM '@([^@]*)$'))), '\.$', ''), '^www\.', ''));
  END LOOP;
  -- the website's and the store's host: no scheme, user, path, query, port, trailing dot or `www.`
  FOREACH v IN ARRAY ARRAY[p_data->>'website', p_data->'store'->>'domain'] LOOP
    CONTINUE WHEN v IS NULL;
    v_keys := v_keys || ('d:' || regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(lower(btrim(v)),
             '^[a-z][a-z0-9+.-]*://', ''), '^[^/?#]*@', ''), '[/?#\\].*$', ''), ':[0-9]*$', ''), '^(www\.)?(.*?)\.?$', '\2'));
  END LOOP;
  -- phones: the last 7 digits, of the whole text and of what comes before an extension
  FOREACH v IN ARRAY v_phones LOOP
    CONTINUE WHEN v IS NULL;
    v_keys := v_keys || ('p:' || right(regexp_replace(v, '[^0-9]', '', 'g'), 7))
      || ('p:' || right(regexp_replace(substring(regexp_replace(v, '^\s*tel:', '', 'i') FROM '^[^A-Za-z#;,]*'), '[^0-9]', '', 'g'), 7));
  END LOOP;
  -- LinkedIn profiles: the slug after /in/ or /pub/, as stored (percent-encoded or not)
  FOREACH v IN ARRAY v_profiles LOOP
    CONTINUE WHEN v IS NULL;
    v_keys := v_keys || ('l:' || substring(lower(v) FROM '/(?:in|pub)/([^/?#]+)'));
  END LOOP;
  -- each key once, in text order, without the empty ones (`e:`, `d:`, `p:`, `l:`)
  RETURN (SELECT COALESCE(array_agg(DISTINCT k) FILTER (WHERE k IS NOT NULL AND k !~ '^[edpl]:$'), '{}') FROM unnest(v_keys) k);
END
$$;

CREATE INDEX IF NOT EXISTS "leads_contact_keys_v1_idx" ON "leads" USING gin ("lead_contact_keys"("data"));
