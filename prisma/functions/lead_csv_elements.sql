-- lead_csv_elements: a list as one cell of the CSV export: its strings and numbers joined by "; ", quoted as lead_csv_text
-- (an empty list: an empty quoted cell), as apps/api/src/lead-export.ts's `cell` writes one (decision 043).
-- Called by: lead_csv_list, for a list its quick path does not take (anything but plain strings).
-- Locks: nothing (a pure function).
-- Guarantees: IMMUTABLE; elements in the list's order.
-- Depends on: lead_csv_text

CREATE OR REPLACE FUNCTION "lead_csv_elements"(p_list JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lead_csv_text(COALESCE((
    SELECT string_agg(e #>> '{}', '; ' ORDER BY n)
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_list) = 'array' THEN p_list ELSE '[]' END) WITH ORDINALITY AS x(e, n)
    WHERE jsonb_typeof(e) IN ('string', 'number')), ''))
$$;
