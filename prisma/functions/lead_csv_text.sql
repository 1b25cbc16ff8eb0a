-- lead_csv_text: a text cell of the CSV export, as apps/api/src/lead-export.ts's csv-stringify settings write one: quoted,
-- its quotes doubled, with a leading apostrophe when it starts with = + - @ tab or CR (OWASP's CSV injection advice).
-- Called by: lead_csv_cell, lead_csv_list, lead_csv_checks (the CSV export rendered by PostgreSQL, decision 043).
-- Locks: nothing (a pure function).
-- Guarantees: IMMUTABLE, one expression: PostgreSQL inlines it into its callers (a call per cell would cost more than the
--   cell).

CREATE OR REPLACE FUNCTION "lead_csv_text"(p_text TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '"' || replace(CASE WHEN left(p_text, 1) IN ('=', '+', '-', '@', E'\t', E'\r') THEN '''' || p_text ELSE p_text END, '"', '""') || '"'
$$;
