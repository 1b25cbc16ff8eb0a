-- raise_erasure_epoch: the trigger that raises erasure_epoch once per statement that deleted leads, in that
-- statement's transaction, so an API process's kept finished-job bodies are read again (decision 031).
-- Called by: the trigger leads_raise_erasure_epoch (defined below, with its function), on the partitioned parent
--   leads (decision 046), which fires for deletions made through it: subject erasure, lead retention's batches, an
--   account's deletion by cascade. A partition dropped whole fires nothing: drop_expired_lead_partition raises the
--   epoch itself.
-- Locks: the one erasure_epoch row, until the deleting transaction ends.
-- Guarantees: once a deletion of leads commits, the epoch is higher than any an API process read before it.

CREATE OR REPLACE FUNCTION "raise_erasure_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A statement that deleted nothing (a retention run with nothing due) leaves every kept body valid.
  IF EXISTS (SELECT 1 FROM "gone") THEN
    UPDATE "erasure_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER "leads_raise_erasure_epoch" AFTER DELETE ON "leads"
  REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "raise_erasure_epoch"();
