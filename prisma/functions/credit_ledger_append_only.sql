-- credit_ledger_append_only: the trigger that refuses every UPDATE and DELETE of a ledger row, so the
-- ledger stays the proof of every balance (docs/decisions/004-terminal-status-and-billing.md).
-- Called by: the trigger credit_ledger_no_update_or_delete (defined below, with its function).
-- Locks: nothing of its own.
-- Guarantees: a ledger row, once written, is never changed nor removed by any code path.

CREATE OR REPLACE FUNCTION "credit_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger is append-only';
END;
$$;

CREATE OR REPLACE TRIGGER "credit_ledger_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "credit_ledger"
  FOR EACH ROW EXECUTE FUNCTION "credit_ledger_append_only"();
