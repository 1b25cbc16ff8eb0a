-- suppression_counts_kept: keeps suppression_counts equal to the number of an account's suppressions of each kind,
-- so GET /suppressions and an upload's cap read three rows instead of counting the whole list (issue 39; decision 043).
-- Called by: the statement triggers suppression_counts_on_insert and suppression_counts_on_delete (defined below),
--   once per INSERT or DELETE statement on suppressions, with the statement's rows as a transition table; the
--   count itself is read by packages/db/src/suppressions.ts (countSuppressions, addSuppressionsWithin).
-- Locks: the counted accounts' suppression_counts rows, in (account, kind) order, so two statements on one account
--   queue there rather than deadlock; uploads of an account are one at a time already (an advisory lock).
-- Guarantees: in the statement's own transaction, so a count is never ahead of or behind the rows a snapshot sees;
--   an account deleted in the same statement (the cascade) gets no row back. suppressions rows are never UPDATEd.

CREATE OR REPLACE FUNCTION "suppression_counts_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "suppression_counts" AS c ("account_id", "kind", "entries")
    SELECT n."account_id", n."kind", count(*)::int FROM "new_rows" n
    GROUP BY n."account_id", n."kind" ORDER BY n."account_id", n."kind"
    ON CONFLICT ("account_id", "kind") DO UPDATE SET "entries" = c."entries" + EXCLUDED."entries";
  ELSE
    -- An account's deletion removes its entries by the cascade: its counts go by the cascade too, and are not
    -- written again for an account that no longer exists (the join).
    INSERT INTO "suppression_counts" AS c ("account_id", "kind", "entries")
    SELECT o."account_id", o."kind", -count(*)::int FROM "old_rows" o JOIN "accounts" a ON a."id" = o."account_id"
    GROUP BY o."account_id", o."kind" ORDER BY o."account_id", o."kind"
    ON CONFLICT ("account_id", "kind") DO UPDATE SET "entries" = c."entries" + EXCLUDED."entries";
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER "suppression_counts_on_insert"
  AFTER INSERT ON "suppressions" REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "suppression_counts_kept"();

CREATE OR REPLACE TRIGGER "suppression_counts_on_delete"
  AFTER DELETE ON "suppressions" REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "suppression_counts_kept"();
