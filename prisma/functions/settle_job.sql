-- settle_job: the terminal compare-and-set, the only statement that writes a terminal status (worker end,
-- timeout, last failed attempt, owner's and operator's cancel). It matches only a job that is not terminal
-- and still has the delivered count the decision was made from; then the ledger's rows that return the job's
-- reservation (kind 'release') and charge it, the account's counters (on one credit stripe: settle_credits), and
-- the outbox rows of the job's webhook event, all in one transaction. A job without webhookUrl of an account without endpoints pays one probe of
-- webhook_endpoints_account_id_idx.
-- The event's name comes from the caller (packages/domain's JOB_EVENT_OF), so it is written in one place.
-- A batch's child tells its batch in the same transaction (settle_batch_child: the batch's counters, and the
-- batch's own settlement and event when it is the last open child); those deliveries come back with the job's.
-- With p_share (not NULL) the account's next held jobs of the source are released into the place in its share
-- the job frees (release_held_jobs; docs/decisions/020-fair-queues.md), in the same transaction: a batch's children
-- are held jobs like any other, so a batch refills its account's slots child by child. A borrowed or a never
-- released job frees no place, and an account without held jobs has nothing to release: neither takes the lock.
-- Called by: packages/db/src/job-settlement.ts (settleJob).
-- Locks: the jobs row, then (a batch child) the batches row, then the accounts row FOR KEY SHARE and one
--   credit_stripes row (settle_credits), then, when it releases, release_held_jobs' advisory lock of the account and
--   source and the held rows it releases (skipping locked ones). The account row itself is never locked more strongly.
-- Guarantees: no row back when the job was terminal already or its count moved on; each job is charged at
--   most once (the ledger's unique (job, kind)); the deliveries' ids to enqueue are returned with the job,
--   and so are the jobs released, oldest first, for the caller to enqueue.
-- Depends on: record_job_event, release_held_jobs, settle_batch_child, settle_credits

CREATE OR REPLACE FUNCTION "settle_job"(
  p_job_id TEXT, p_status "JobStatus", p_stop_reason TEXT, p_charge INTEGER, p_delivered INTEGER, p_event_type TEXT, p_share INTEGER
) RETURNS TABLE ("job" "jobs", "webhook_deliveries" TEXT[], "released_jobs" TEXT[])
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job "jobs";
  v_deliveries TEXT[] := '{}';
  v_batch_deliveries TEXT[] := '{}';
  v_released TEXT[] := '{}';
BEGIN
  UPDATE "jobs" SET "status" = p_status, "stop_reason" = p_stop_reason, "credits_charged" = p_charge, "finished_at" = now(), "updated_at" = now()
  WHERE "id" = p_job_id AND "status" IN ('queued', 'running') AND "delivered_count" = p_delivered
  RETURNING * INTO v_job;
  IF NOT FOUND THEN RETURN; END IF;
  IF v_job."batch_id" IS NOT NULL THEN
    v_batch_deliveries := settle_batch_child(v_job);
  END IF;
  IF v_job."credits_reserved" > 0 THEN
    INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (v_job."account_id", p_job_id, 'release', v_job."credits_reserved");
  END IF;
  IF p_charge > 0 THEN
    INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (v_job."account_id", p_job_id, 'charge', p_charge);
  END IF;
  PERFORM settle_credits(v_job."account_id", p_job_id, p_charge, v_job."credits_reserved");
  IF v_job."webhook_url" IS NOT NULL OR EXISTS (SELECT 1 FROM "webhook_endpoints" e WHERE e."account_id" = v_job."account_id") THEN
    v_deliveries := record_job_event(v_job, p_event_type);
  END IF;
  -- Only a job that had a place in its account's share frees one (a borrowed job ran beyond the share, a held one
  -- never had it), and only an account with held jobs of the source has one to release: otherwise no release and no
  -- lock, so one account's settlements queue on its release lock only while it has a backlog.
  IF p_share IS NOT NULL AND v_job."released_at" IS NOT NULL AND NOT v_job."borrowed" AND EXISTS (
    SELECT 1 FROM "jobs" h
    WHERE h."account_id" = v_job."account_id" AND h."source" = v_job."source" AND h."status" = 'queued' AND h."released_at" IS NULL
  ) THEN
    v_released := release_held_jobs(v_job."account_id", v_job."source", p_share);
  END IF;
  RETURN QUERY SELECT v_job, v_deliveries || v_batch_deliveries, v_released;
END
$$;
