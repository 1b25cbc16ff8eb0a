-- purge_account_rows: deletes one bounded batch of what an account being deleted owns, so its deletion is many short
-- transactions rather than one that holds a customer's year of rows for minutes (issue 39: 120 s at 1M leads;
-- decision 043). Each call takes the first of these that still has rows: its finished jobs (their leads, webhook
-- deliveries and attempts by the cascade, through indexes), a few at a time so that together they hold about
-- p_rows leads; then up to p_rows of its remaining webhook deliveries, deliveries memory, suppressions (their kept
-- counts follow), batch deliveries and tiles, idempotency keys and monitor runs. What is left after the last call
-- (the account row, keys, monitors, batches, webhooks, credit stripes and the ledger) goes with delete_account.
-- Called by: packages/db/src/account-deletion.ts (deleteAccount), until it returns no rows, then delete_account.
-- Locks: the rows it deletes, for one statement's batch; never the account row (a settlement of the account's
--   last open job is not held up), never a queued or running job (those are delete_account's refusal).
-- Guarantees: each call is one short transaction deleting at most about p_rows rows of one kind (a single job with
--   more leads than p_rows goes whole); a call never deletes what the account's open jobs use. Meant for an account
--   whose keys are revoked: an account left half purged (the deletion refused for an open job) is still whole in its
--   ledger, keys and balance, and the next deletion carries on. Returns the jobs and leads it deleted, and all rows.
-- Plans: each statement planned for the account it is called for (plan_cache_mode = force_custom_plan). A generic
--   plan, which the plan cache may switch a session to after five calls, estimates every account at the average:
--   beside a 1M-row account it scans the whole of account_deliveries, suppressions and webhook_deliveries for a
--   small one (packages/db/test/account-purge.test.ts; issue 39).

CREATE OR REPLACE FUNCTION "purge_account_rows"(p_account_id TEXT, p_rows INTEGER)
RETURNS TABLE ("o_jobs" INTEGER, "o_leads" BIGINT, "o_rows" BIGINT)
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  v_jobs TEXT[];
  v_leads BIGINT;
  v_rows BIGINT;
BEGIN
  -- Finished jobs, oldest first (jobs(account_id, created_at)), as many as fit in p_rows leads; at least one.
  SELECT array_agg(w."id") INTO v_jobs FROM (
    SELECT j."id", row_number() OVER (ORDER BY j."created_at", j."id") AS nth,
           sum(CASE WHEN j."leads_expired_at" IS NULL THEN j."delivered_count" - j."leads_erased" ELSE 0 END + 1)
             OVER (ORDER BY j."created_at", j."id") AS upto
    FROM (SELECT "id", "created_at", "delivered_count", "leads_erased", "leads_expired_at" FROM "jobs"
          WHERE "account_id" = p_account_id AND "status" NOT IN ('queued', 'running')
          ORDER BY "created_at", "id" LIMIT p_rows) j
  ) w WHERE w."upto" <= p_rows OR w."nth" = 1;
  IF v_jobs IS NOT NULL THEN
    SELECT count(*) INTO v_leads FROM "leads" l WHERE l."job_id" = ANY (v_jobs);
    DELETE FROM "jobs" j WHERE j."id" = ANY (v_jobs) AND j."status" NOT IN ('queued', 'running');
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    RETURN QUERY SELECT v_rows::INTEGER, v_leads, v_rows + v_leads;
    RETURN;
  END IF;

  -- Then the rest that grows with the account's use, a table at a time, p_rows rows at a time (by ctid: one TID scan).
  -- webhook_deliveries by id, not ctid: it is partitioned by week (decision 053), and a ctid names a row within one
  -- partition only (the same ctid in another week is another account's delivery).
  DELETE FROM "webhook_deliveries" t WHERE t."account_id" = p_account_id AND t."id" = ANY (ARRAY(
    SELECT d."id" FROM "webhook_deliveries" d WHERE d."account_id" = p_account_id LIMIT p_rows));
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  IF v_rows = 0 THEN
    DELETE FROM "account_deliveries" t WHERE t.ctid = ANY (ARRAY(
      SELECT d.ctid FROM "account_deliveries" d WHERE d."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  IF v_rows = 0 THEN
    DELETE FROM "suppressions" t WHERE t.ctid = ANY (ARRAY(
      SELECT s.ctid FROM "suppressions" s WHERE s."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  IF v_rows = 0 THEN
    DELETE FROM "batch_deliveries" t WHERE t.ctid = ANY (ARRAY(
      SELECT d.ctid FROM "batches" b JOIN "batch_deliveries" d ON d."batch_id" = b."id" WHERE b."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  IF v_rows = 0 THEN
    DELETE FROM "batch_tiles" t WHERE t.ctid = ANY (ARRAY(
      SELECT d.ctid FROM "batches" b JOIN "batch_tiles" d ON d."batch_id" = b."id" WHERE b."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  IF v_rows = 0 THEN
    DELETE FROM "idempotency_keys" t WHERE t.ctid = ANY (ARRAY(
      SELECT k.ctid FROM "idempotency_keys" k WHERE k."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  IF v_rows = 0 THEN
    DELETE FROM "monitor_runs" t WHERE t.ctid = ANY (ARRAY(
      SELECT r.ctid FROM "monitors" m JOIN "monitor_runs" r ON r."monitor_id" = m."id" WHERE m."account_id" = p_account_id LIMIT p_rows));
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  RETURN QUERY SELECT 0, 0::BIGINT, v_rows;
END
$$;
