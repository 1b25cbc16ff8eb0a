-- lead_csv_row: one lead as a row of the CSV export (CRLF-terminated), its columns those of apps/api/src/lead-export.ts's
-- CSV_COLUMNS in their order, each cell as lead_csv_cell writes it, so PostgreSQL renders the export and the API only
-- passes its bytes on (issue 39, decision 043). A list that stays whole in one cell (contacts, provenance) is its JSON
-- as JavaScript's JSON.stringify writes it: jsonb's text without the space after each `,` and `:` between tokens.
-- Called by: packages/db/src/lead-export-copy.ts (copyAccountLeads, copyResultSetLeads with format csv), inside
--   COPY (SELECT …) TO STDOUT.
-- Locks: nothing (a pure function).
-- Guarantees: STABLE (concat_ws and to_char are). PL/pgSQL, so its one expression (the cells' functions inlined into it)
--   is planned once per connection, not in every chunk's COPY (inlined there, its 80 cells cost 30-65 ms of planning a
--   chunk, and the plan's cost set off JIT compilation: seconds a chunk); the same bytes as the export's csv-stringify
--   path for the same lead (apps/api/test/lead-export-copy.test.ts compares them); a column added to CSV_COLUMNS is
--   added here in the same place.
-- Depends on: lead_csv_text, lead_csv_cell, lead_csv_list, lead_csv_checks

CREATE OR REPLACE FUNCTION "lead_csv_row"(p_job_id TEXT, p_result_set_id TEXT, p_position INTEGER, p_delivered_at TIMESTAMPTZ, p_data JSONB)
RETURNS TEXT LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN concat_ws(',',
    lead_csv_text(p_job_id), lead_csv_text(p_result_set_id), p_position::text,
    lead_csv_text(to_char(p_delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    lead_csv_cell(p_data->'source'), lead_csv_cell(p_data->'businessName'), lead_csv_cell(p_data->'email'),
    lead_csv_cell(p_data->'phone'), lead_csv_cell(p_data->'address'), lead_csv_cell(p_data->'website'),
    lead_csv_cell(p_data->'reviewScore'), lead_csv_list(p_data->'categories'),
    lead_csv_cell(p_data->'socialProfiles'->'facebook'), lead_csv_cell(p_data->'socialProfiles'->'instagram'),
    lead_csv_cell(p_data->'socialProfiles'->'linkedin'),
    lead_csv_cell(p_data->'person'->'fullName'), lead_csv_cell(p_data->'person'->'title'), lead_csv_cell(p_data->'person'->'seniority'),
    lead_csv_cell(p_data->'person'->'linkedinUrl'), lead_csv_cell(p_data->'person'->'location'),
    lead_csv_cell(p_data->'store'->'domain'), lead_csv_cell(p_data->'store'->'country'), lead_csv_cell(p_data->'store'->'platform'),
    CASE WHEN jsonb_typeof(p_data->'contacts') IN ('array', 'object')
      THEN lead_csv_text(regexp_replace((p_data->'contacts')::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g')) ELSE '' END,
    lead_csv_cell(p_data->'emailVerification'->'status'), lead_csv_checks(p_data->'emailVerification'),
    lead_csv_cell(p_data->'emailVerification'->'verdict'), lead_csv_cell(p_data->'emailVerification'->'engine'),
    lead_csv_cell(p_data->'store'->'categoryPath'),
    lead_csv_cell(p_data->'retrievedAt'), lead_csv_cell(p_data->'place'->'placeId'),
    lead_csv_cell(p_data->'place'->'location'->'lat'), lead_csv_cell(p_data->'place'->'location'->'lng'),
    lead_csv_cell(p_data->'place'->'addressComponents'->'street'), lead_csv_cell(p_data->'place'->'addressComponents'->'locality'),
    lead_csv_cell(p_data->'place'->'addressComponents'->'postalCode'), lead_csv_cell(p_data->'place'->'addressComponents'->'region'),
    lead_csv_cell(p_data->'place'->'addressComponents'->'countryCode'), lead_csv_cell(p_data->'place'->'internationalPhone'),
    lead_csv_cell(p_data->'place'->'reviewCount'), lead_csv_cell(p_data->'place'->'priceLevel'),
    lead_csv_cell(p_data->'place'->'businessStatus'), lead_csv_cell(p_data->'place'->'openingHours'->'weekdayDescriptions'),
    lead_csv_cell(p_data->'place'->'googleMapsUri'), lead_csv_cell(p_data->'place'->'primaryType'),
    lead_csv_cell(p_data->'place'->'types'), lead_csv_cell(p_data->'place'->'utcOffsetMinutes'),
    lead_csv_cell(p_data->'person'->'workEmail'), lead_csv_cell(p_data->'person'->'emailType'),
    lead_csv_cell(p_data->'person'->'phoneNumbers'),
    lead_csv_cell(p_data->'person'->'locationParts'->'locality'), lead_csv_cell(p_data->'person'->'locationParts'->'region'),
    lead_csv_cell(p_data->'person'->'locationParts'->'country'), lead_csv_cell(p_data->'person'->'locationParts'->'postalCode'),
    lead_csv_cell(p_data->'person'->'jobStartDate'), lead_csv_cell(p_data->'person'->'seniorityLevels'),
    lead_csv_cell(p_data->'person'->'company'->'name'), lead_csv_cell(p_data->'person'->'company'->'website'),
    lead_csv_cell(p_data->'person'->'company'->'size'), lead_csv_cell(p_data->'person'->'company'->'industry'),
    lead_csv_cell(p_data->'person'->'company'->'linkedinUrl'), lead_csv_cell(p_data->'person'->'company'->'location'),
    lead_csv_cell(p_data->'person'->'skills'),
    lead_csv_cell(p_data->'store'->'merchantName'), lead_csv_cell(p_data->'store'->'plan'), lead_csv_cell(p_data->'store'->'city'),
    lead_csv_cell(p_data->'store'->'region'), lead_csv_cell(p_data->'store'->'categoryPaths'),
    lead_csv_cell(p_data->'store'->'estimatedMonthlySales'), lead_csv_cell(p_data->'store'->'employeeCount'),
    lead_csv_cell(p_data->'store'->'productCount'), lead_csv_cell(p_data->'store'->'rank'),
    lead_csv_cell(p_data->'store'->'technologies'), lead_csv_cell(p_data->'store'->'apps'), lead_csv_cell(p_data->'store'->'createdAt'),
    lead_csv_cell(p_data->'provenance'->'email'->'sourceUrl'), lead_csv_cell(p_data->'provenance'->'phone'->'sourceUrl'),
    CASE WHEN jsonb_typeof(p_data->'provenance') IN ('array', 'object')
      THEN lead_csv_text(regexp_replace((p_data->'provenance')::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g')) ELSE '' END,
    -- the notice every lead carries (decision 042, issue 38)
    lead_csv_cell(p_data->'notice'->'sources'), lead_csv_cell(p_data->'notice'->'retrievedAt'),
    lead_csv_cell(p_data->'notice'->'objectionUrl')
  ) || E'\r\n';
END
$$;
