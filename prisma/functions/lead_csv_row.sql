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
DECLARE
  -- Each group of columns is looked up once; a group the lead has not (SQL NULL: the key is absent) is its run of
  -- empty cells, written as a constant: most leads carry one of place, person and store, and each absent cell cost as
  -- much as a present one (decision 049).
  v_social JSONB := p_data->'socialProfiles';
  v_person JSONB := p_data->'person';
  v_company JSONB := v_person->'company';
  v_parts JSONB := v_person->'locationParts';
  v_store JSONB := p_data->'store';
  v_verification JSONB := p_data->'emailVerification';
  v_place JSONB := p_data->'place';
  v_address JSONB := v_place->'addressComponents';
  v_provenance JSONB := p_data->'provenance';
  v_notice JSONB := p_data->'notice';
BEGIN
  RETURN concat_ws(',',
    lead_csv_text(p_job_id), lead_csv_text(p_result_set_id), p_position::text,
    lead_csv_text(to_char(p_delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    lead_csv_cell(p_data->'source'), lead_csv_cell(p_data->'businessName'), lead_csv_cell(p_data->'email'),
    lead_csv_cell(p_data->'phone'), lead_csv_cell(p_data->'address'), lead_csv_cell(p_data->'website'),
    lead_csv_cell(p_data->'reviewScore'), lead_csv_list(p_data->'categories'),
    CASE WHEN v_social IS NULL THEN ',,' ELSE concat_ws(',',
      lead_csv_cell(v_social->'facebook'), lead_csv_cell(v_social->'instagram'), lead_csv_cell(v_social->'linkedin')) END,
    CASE WHEN v_person IS NULL THEN ',,,,' ELSE concat_ws(',',
      lead_csv_cell(v_person->'fullName'), lead_csv_cell(v_person->'title'), lead_csv_cell(v_person->'seniority'),
      lead_csv_cell(v_person->'linkedinUrl'), lead_csv_cell(v_person->'location')) END,
    CASE WHEN v_store IS NULL THEN ',,' ELSE concat_ws(',',
      lead_csv_cell(v_store->'domain'), lead_csv_cell(v_store->'country'), lead_csv_cell(v_store->'platform')) END,
    CASE WHEN jsonb_typeof(p_data->'contacts') IN ('array', 'object')
      THEN lead_csv_text(regexp_replace((p_data->'contacts')::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g')) ELSE '' END,
    CASE WHEN v_verification IS NULL THEN ',,,' ELSE concat_ws(',',
      lead_csv_cell(v_verification->'status'), lead_csv_checks(v_verification),
      lead_csv_cell(v_verification->'verdict'), lead_csv_cell(v_verification->'engine')) END,
    CASE WHEN v_store IS NULL THEN '' ELSE lead_csv_cell(v_store->'categoryPath') END,
    lead_csv_cell(p_data->'retrievedAt'),
    CASE WHEN v_place IS NULL THEN ',,,,,,,,,,,,,,,,' ELSE concat_ws(',',
      lead_csv_cell(v_place->'placeId'),
      lead_csv_cell(v_place->'location'->'lat'), lead_csv_cell(v_place->'location'->'lng'),
      lead_csv_cell(v_address->'street'), lead_csv_cell(v_address->'locality'), lead_csv_cell(v_address->'postalCode'),
      lead_csv_cell(v_address->'region'), lead_csv_cell(v_address->'countryCode'),
      lead_csv_cell(v_place->'internationalPhone'), lead_csv_cell(v_place->'reviewCount'), lead_csv_cell(v_place->'priceLevel'),
      lead_csv_cell(v_place->'businessStatus'), lead_csv_cell(v_place->'openingHours'->'weekdayDescriptions'),
      lead_csv_cell(v_place->'googleMapsUri'), lead_csv_cell(v_place->'primaryType'),
      lead_csv_cell(v_place->'types'), lead_csv_cell(v_place->'utcOffsetMinutes')) END,
    CASE WHEN v_person IS NULL THEN ',,,,,,,,,,,,,,,' ELSE concat_ws(',',
      lead_csv_cell(v_person->'workEmail'), lead_csv_cell(v_person->'emailType'), lead_csv_cell(v_person->'phoneNumbers'),
      lead_csv_cell(v_parts->'locality'), lead_csv_cell(v_parts->'region'), lead_csv_cell(v_parts->'country'),
      lead_csv_cell(v_parts->'postalCode'),
      lead_csv_cell(v_person->'jobStartDate'), lead_csv_cell(v_person->'seniorityLevels'),
      lead_csv_cell(v_company->'name'), lead_csv_cell(v_company->'website'), lead_csv_cell(v_company->'size'),
      lead_csv_cell(v_company->'industry'), lead_csv_cell(v_company->'linkedinUrl'), lead_csv_cell(v_company->'location'),
      lead_csv_cell(v_person->'skills')) END,
    CASE WHEN v_store IS NULL THEN ',,,,,,,,,,,' ELSE concat_ws(',',
      lead_csv_cell(v_store->'merchantName'), lead_csv_cell(v_store->'plan'), lead_csv_cell(v_store->'city'),
      lead_csv_cell(v_store->'region'), lead_csv_cell(v_store->'categoryPaths'),
      lead_csv_cell(v_store->'estimatedMonthlySales'), lead_csv_cell(v_store->'employeeCount'),
      lead_csv_cell(v_store->'productCount'), lead_csv_cell(v_store->'rank'),
      lead_csv_cell(v_store->'technologies'), lead_csv_cell(v_store->'apps'), lead_csv_cell(v_store->'createdAt')) END,
    CASE WHEN v_provenance IS NULL THEN ',,' ELSE concat_ws(',',
      lead_csv_cell(v_provenance->'email'->'sourceUrl'), lead_csv_cell(v_provenance->'phone'->'sourceUrl'),
      CASE WHEN jsonb_typeof(v_provenance) IN ('array', 'object')
        THEN lead_csv_text(regexp_replace(v_provenance::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g')) ELSE '' END) END,
    -- the notice every lead carries (decision 042, issue 38)
    CASE WHEN v_notice IS NULL THEN ',,' ELSE concat_ws(',',
      lead_csv_cell(v_notice->'sources'), lead_csv_cell(v_notice->'retrievedAt'), lead_csv_cell(v_notice->'objectionUrl')) END
  ) || E'\r\n';
END
$$;
