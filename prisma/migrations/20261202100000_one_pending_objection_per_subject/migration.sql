--! online
-- One pending objection per domain or phone (decision 042, issue 39): every request for such a subject is answered
-- with its pending objection, which the API read and then inserted if there was none, so two requests at once could
-- insert two. The partial unique index objections_pending_subject_key makes it one; the API's insert meets the
-- existing row (ON CONFLICT) and answers with it. Emails are left out: each request within the hour's mail is a row
-- of its own, with its own link.
--
-- Online: the index is built CONCURRENTLY (reads and writes of objections go on; applied objections are kept, so the
-- table grows) in a section of its own outside any transaction (migrator.ts: `--! no-transaction`). Before it:
--   1. the duplicates two racing requests may have made are folded into the newest (the one the API answered with
--      last; the others were never proven, so nothing confirmed is lost), and an index a failed build left INVALID
--      (a duplicate inserted meanwhile by the release before) is dropped, so a second run builds it again;
--   2. the index, CONCURRENTLY;
--   3. in the main transaction: the same folding, and the index built there if the section before did not (a database
--      whose earlier migrations were pending too: its table is new).

-- 1. the duplicates folded, and an invalid index from a failed build dropped
DO $$
BEGIN
  IF to_regclass('public.objections') IS NULL THEN
    RETURN; -- a database whose first migrations are pending: the main transaction does it
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  DELETE FROM "objections" o
  WHERE o."status" = 'pending' AND o."kind" <> 'email'::"SuppressionKind"
    AND EXISTS (
      SELECT 1 FROM "objections" n
      WHERE n."kind" = o."kind" AND n."value" = o."value" AND n."status" = 'pending' AND (n."created_at", n."id") > (o."created_at", o."id")
    );
  IF EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass('public.objections_pending_subject_key') AND NOT i.indisvalid) THEN
    DROP INDEX "objections_pending_subject_key";
  END IF;
END
$$;
--! commit

--! no-transaction
-- 2. the index, built while the service reads and writes objections
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "objections_pending_subject_key" ON "objections" ("kind", "value")
  WHERE "status" = 'pending' AND "kind" <> 'email'::"SuppressionKind";
--! commit

-- 3. the main transaction: the index valid, or built here
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass('public.objections_pending_subject_key') AND i.indisvalid) THEN
    DROP INDEX IF EXISTS "objections_pending_subject_key";
    CREATE UNIQUE INDEX "objections_pending_subject_key" ON "objections" ("kind", "value")
      WHERE "status" = 'pending' AND "kind" <> 'email'::"SuppressionKind";
  END IF;
END
$$;
