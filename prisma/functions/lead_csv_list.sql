-- lead_csv_list: a list as one cell of the CSV export, as apps/api/src/lead-export.ts's `cell` writes one (decision 043):
-- its strings and numbers joined by "; ", quoted as lead_csv_text. A list of plain strings (no escape in its JSON, so
-- no `", "` inside one) is cut out of its JSON text in one expression; any other goes to lead_csv_elements.
-- Called by: lead_csv_cell (a value that is a list), lead_csv_row (categories).
-- Locks: nothing (a pure function).
-- Guarantees: IMMUTABLE, one expression (inlined: the quick path costs no function call, where lead_csv_elements'
--   query costs tens of microseconds a lead); the same cell as lead_csv_elements for every list.
-- Depends on: lead_csv_text, lead_csv_elements

CREATE OR REPLACE FUNCTION "lead_csv_list"(p_list JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(p_list) IS DISTINCT FROM 'array' OR p_list = '[]' THEN '""'
    WHEN strpos(p_list::text, '\') = 0 AND NOT jsonb_path_exists(p_list, '$[*] ? (@.type() != "string")')
      THEN lead_csv_text(replace(substr(p_list::text, 3, length(p_list::text) - 4), '", "', '; '))
    ELSE lead_csv_elements(p_list)
  END
$$;
