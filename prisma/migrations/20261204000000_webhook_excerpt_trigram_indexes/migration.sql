--! online
-- Trigram indexes on webhook attempts' kept excerpts (issue 39, decision 053): a subject's erasure clears the excerpts
-- that may hold it (subject-erasure.ts: `response_excerpt ILIKE '%' || $1 || '%'`, or for a phone its digits
-- `regexp_replace(response_excerpt, '[^0-9]', '', 'g') LIKE '%' || $1 || '%'`), which read every attempt of every
-- week. pg_trgm's GIN operator class answers both (LIKE and ILIKE with a pattern of three characters or more); the
-- phone's index is on the very expression the erasure filters by. Both partial (an attempt without an answer has
-- nothing to clear). pg_trgm ships with PostgreSQL (contrib) and is trusted since PostgreSQL 13: the database's owner,
-- which the migrator connects as, may create it.
--
-- Online for a database with many attempts: a partitioned table's index cannot be built CONCURRENTLY, so
--   1. (a transaction) the extension, and each index on the parent alone (ON ONLY: invalid, no partition read);
--      from then on ATTACH (ensure_weekly_partitions.sql: a new week) builds it on a new, empty partition itself;
--   2. (no transaction, migrator.ts `--! statements`) for each partition without it: an index a failed build left
--      INVALID dropped, the index built CONCURRENTLY (reads and writes go on), then attached to the parent's (which
--      is valid once every partition's is);
--   3. (the main transaction) the same, built in the transaction, for any partition the section before did not do
--      (a database whose earlier migrations were pending: the tables are new).

-- 1. the extension and the parents' indexes, not yet valid
DO $$
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.webhook_attempts')) IS DISTINCT FROM 'p' THEN
    RETURN; -- a database whose earlier migrations are pending: the main transaction does it
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX IF NOT EXISTS "webhook_attempts_response_excerpt_trgm_idx" ON ONLY "webhook_attempts"
    USING gin ("response_excerpt" gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL;
  CREATE INDEX IF NOT EXISTS "webhook_attempts_excerpt_digits_trgm_idx" ON ONLY "webhook_attempts"
    USING gin (regexp_replace("response_excerpt", '[^0-9]', '', 'g') gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL;
END
$$;
--! commit

--! no-transaction
--! statements
-- 2. each partition's, built while the service reads and writes, then attached
WITH wanted(parent_index, suffix, definition) AS (
  VALUES
    ('webhook_attempts_response_excerpt_trgm_idx', 'response_excerpt_trgm_idx',
     'USING gin ("response_excerpt" gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL'),
    ('webhook_attempts_excerpt_digits_trgm_idx', 'excerpt_digits_trgm_idx',
     $d$USING gin (regexp_replace("response_excerpt", '[^0-9]', '', 'g') gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL$d$)
), missing AS (
  SELECT w.parent_index, w.definition, c.relname AS partition_name, c.relname || '_' || w.suffix AS index_name
  FROM wanted w
  JOIN pg_inherits i ON i.inhparent = to_regclass('public.webhook_attempts')
  JOIN pg_class c ON c.oid = i.inhrelid
  WHERE to_regclass('public.' || w.parent_index) IS NOT NULL
    AND NOT EXISTS (
      SELECT 1 FROM pg_inherits ii JOIN pg_index x ON x.indexrelid = ii.inhrelid
      WHERE ii.inhparent = to_regclass('public.' || w.parent_index) AND x.indrelid = c.oid
    )
)
SELECT s.statement FROM missing m, LATERAL (
  VALUES
    (1, CASE WHEN EXISTS (SELECT 1 FROM pg_index x WHERE x.indexrelid = to_regclass('public.' || quote_ident(m.index_name)) AND NOT x.indisvalid)
             THEN format('DROP INDEX CONCURRENTLY %I', m.index_name) END),
    (2, format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON %I %s', m.index_name, m.partition_name, m.definition)),
    (3, format('ALTER INDEX %I ATTACH PARTITION %I', m.parent_index, m.index_name))
) AS s(step, statement)
WHERE s.statement IS NOT NULL
ORDER BY m.partition_name, m.parent_index, s.step;
--! commit

-- 3. the main transaction: the parents' indexes, and each partition's the section before did not build
CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
DECLARE
  v_index RECORD;
  v_partition RECORD;
  v_name TEXT;
BEGIN
  CREATE INDEX IF NOT EXISTS "webhook_attempts_response_excerpt_trgm_idx" ON ONLY "webhook_attempts"
    USING gin ("response_excerpt" gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL;
  CREATE INDEX IF NOT EXISTS "webhook_attempts_excerpt_digits_trgm_idx" ON ONLY "webhook_attempts"
    USING gin (regexp_replace("response_excerpt", '[^0-9]', '', 'g') gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL;
  FOR v_index IN
    SELECT * FROM (VALUES
      ('webhook_attempts_response_excerpt_trgm_idx', 'response_excerpt_trgm_idx',
       'USING gin ("response_excerpt" gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL'),
      ('webhook_attempts_excerpt_digits_trgm_idx', 'excerpt_digits_trgm_idx',
       $d$USING gin (regexp_replace("response_excerpt", '[^0-9]', '', 'g') gin_trgm_ops) WHERE "response_excerpt" IS NOT NULL$d$)
    ) AS w(parent_index, suffix, definition)
  LOOP
    FOR v_partition IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'public.webhook_attempts'::regclass
        AND NOT EXISTS (
          SELECT 1 FROM pg_inherits ii JOIN pg_index x ON x.indexrelid = ii.inhrelid
          WHERE ii.inhparent = to_regclass('public.' || v_index.parent_index) AND x.indrelid = c.oid
        )
      ORDER BY c.relname
    LOOP
      v_name := v_partition.relname || '_' || v_index.suffix;
      EXECUTE format('DROP INDEX IF EXISTS %I', v_name);
      EXECUTE format('CREATE INDEX %I ON %I %s', v_name, v_partition.relname, v_index.definition);
      EXECUTE format('ALTER INDEX %I ATTACH PARTITION %I', v_index.parent_index, v_name);
    END LOOP;
  END LOOP;
END
$$;
