-- lead_csv_cell: one cell of the CSV export from a JSON value, byte for byte as apps/api/src/lead-export.ts's `cell` and
-- csv-stringify settings write it (decision 043): a string as lead_csv_text; a number bare; a boolean quoted as text;
-- a list as lead_csv_list; anything else (nothing, null, an object) empty.
-- Called by: lead_csv_row (the CSV export's COPY, packages/db/src/lead-export-copy.ts).
-- Locks: nothing (a pure function).
-- Guarantees: IMMUTABLE, one expression (PostgreSQL inlines it: 80 cells a lead); numbers as PostgreSQL writes a JSON
--   number, the same digits as JavaScript's for every value a lead holds but 1e21 and beyond or below 1e-6, which
--   JavaScript writes with an exponent.
-- Depends on: lead_csv_text, lead_csv_list

CREATE OR REPLACE FUNCTION "lead_csv_cell"(p_value JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(p_value)
    WHEN 'number' THEN p_value::text
    WHEN 'string' THEN lead_csv_text(p_value #>> '{}')
    WHEN 'boolean' THEN '"' || p_value::text || '"'
    WHEN 'array' THEN lead_csv_list(p_value)
    ELSE ''
  END
$$;
