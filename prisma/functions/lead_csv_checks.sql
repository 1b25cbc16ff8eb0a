-- lead_csv_checks: the emailVerification.checks cell of the CSV export: the names of the checks that hold, in the
-- object's order, joined by "; " and quoted (empty quoted when none holds), as apps/api/src/lead-export.ts writes it;
-- an empty cell for a lead without a verdict (decision 043).
-- Called by: lead_csv_row.
-- Locks: nothing (a pure function).
-- Guarantees: IMMUTABLE; a check holds when its value is anything JavaScript takes for true.
-- Depends on: lead_csv_text

CREATE OR REPLACE FUNCTION "lead_csv_checks"(p_verification JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p_verification) = 'object' THEN lead_csv_text(COALESCE((
    SELECT string_agg(k, '; ' ORDER BY n)
    FROM jsonb_each(CASE WHEN jsonb_typeof(p_verification->'checks') = 'object' THEN p_verification->'checks' ELSE '{}' END)
      WITH ORDINALITY AS c(k, v, n)
    WHERE v::text NOT IN ('false', 'null', '0', '""')), '')) ELSE '' END
$$;
