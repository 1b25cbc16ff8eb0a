-- delete_account_ledger: deletes one bounded batch of the credit ledger of an account whose deletion has taken its
-- audit figures and its row (a row in account_deletions, none in accounts), so the ledger of a customer's year (80,000
-- rows) goes in short transactions rather than in the one that deletes the account (issue 39, decision 043).
-- Called by: delete_account (prisma/functions/delete_account.sql), a batch a call, and for the test account its
--   account's row takes with it (the whole of that one's ledger, small: a sandbox).
--   SECURITY DEFINER: the runtime role may not DELETE a ledger row (decision 035; the key's cascade ran as the
--   table's owner); this deletes only the rows of an account being deleted, and refuses any other.
-- Locks: the ledger rows it deletes, for the caller's transaction.
-- Guarantees: at most p_rows rows (NULL: all), oldest first, all of p_account_id; refuses (raises) unless the account's
--   deletion is recorded in account_deletions and its row is gone, so a live account's ledger never loses a row. The
--   ledger's append-only trigger lets them go through leadgen.account_deletion, set for this statement only and
--   cleared before it returns. Returns how many it deleted (0: the ledger is empty).
-- Plans: custom, for the account (plan_cache_mode = force_custom_plan, as purge_account_rows): a generic plan walks the
--   whole ledger by its primary key for a small account beside a big one.
-- Depends on: credit_ledger_append_only

CREATE OR REPLACE FUNCTION "delete_account_ledger"(p_account_id TEXT, p_rows INTEGER)
RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  v_rows INTEGER;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "account_deletions" d WHERE d."account_id" = p_account_id)
     OR EXISTS (SELECT 1 FROM "accounts" a WHERE a."id" = p_account_id) THEN
    RAISE EXCEPTION 'credit_ledger is append-only: account % is not being deleted', p_account_id;
  END IF;
  PERFORM set_config('leadgen.account_deletion', p_account_id, true);
  -- Through credit_ledger(account_id, id): the oldest p_rows of the account, one TID scan.
  DELETE FROM "credit_ledger" t WHERE t.ctid = ANY (ARRAY(
    SELECT c.ctid FROM "credit_ledger" c WHERE c."account_id" = p_account_id ORDER BY c."id" LIMIT p_rows));
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  PERFORM set_config('leadgen.account_deletion', '', true);
  RETURN v_rows;
END
$$;
