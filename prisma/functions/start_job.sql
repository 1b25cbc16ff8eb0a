-- start_job: a worker takes a job: queued → running (or running again after a worker died), keeping the first
-- start time, and, for a batch child that has not started before, its reservation (docs/decisions/021-batches.md):
-- the child's worst case (reserve_on_start) is reserved against the batch's maxCredits (what its children
-- have been charged and still hold) by a conditional update of the batch's counters, and against the account's
-- available credits on one of its credit stripes (reserve_credits). A child that cannot be covered, whose batch
-- has its batch-wide maxResults already (an area search, decision 039), or whose batch was cancelled, is not started: it comes back unchanged with o_refusal 'batch_budget_exhausted' or
-- 'batch_cancelled', and the worker settles it CANCELLED through the one settlement pipeline.
-- A job outside a batch, or a child already reserved, is one UPDATE. A job started without having been released
-- (a held job a worker was handed all the same) counts as released from now on, so its account's share sees it
-- (docs/decisions/020-fair-queues.md).
-- p_started_at: when the worker took the job (a start written after its deferred start's window, decision 037), or
-- now(); the first start is kept either way.
-- Called by: packages/db/src/jobs.ts (startJob); open_job.
-- Locks: the jobs row; for a child's first start, then the batches row, then the account's credits as
--   reserve_credits takes them (the accounts row FOR KEY SHARE and one credit stripe; all of them under the
--   account row's lock when it gathers). settle_job takes them in the same order.
-- Guarantees: no row when the job is terminal (a late or duplicate entry does nothing); a child is reserved
--   once (the ledger's unique (job, kind)), and never beyond its batch's maxCredits (batches_within_max_credits).
-- Depends on: reserve_credits

CREATE OR REPLACE FUNCTION "start_job"(p_job_id TEXT, p_provider TEXT, p_started_at TIMESTAMPTZ)
RETURNS TABLE ("job" "jobs", "o_refusal" TEXT)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job "jobs";
  v_batch "batches";
  v_reserve INTEGER;
BEGIN
  UPDATE "jobs" SET "status" = 'running', "provider" = p_provider, "started_at" = COALESCE("started_at", p_started_at, now()),
    "released_at" = COALESCE("released_at", now()), "updated_at" = now()
  WHERE "id" = p_job_id AND "status" IN ('queued', 'running') AND ("batch_id" IS NULL OR "credits_reserved" > 0)
  RETURNING * INTO v_job;
  IF FOUND THEN
    RETURN QUERY SELECT v_job, NULL::TEXT;
    RETURN;
  END IF;

  -- A batch child's first start (or a missing or terminal job).
  SELECT * INTO v_job FROM "jobs" WHERE "id" = p_job_id AND "status" IN ('queued', 'running') FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  IF v_job."credits_reserved" > 0 OR v_job."batch_id" IS NULL THEN
    -- reserved meanwhile by a worker that held it too (after a stall): start it as above
    RETURN QUERY SELECT * FROM start_job(p_job_id, p_provider, p_started_at);
    RETURN;
  END IF;

  SELECT * INTO v_batch FROM "batches" WHERE "id" = v_job."batch_id" FOR UPDATE;
  IF v_batch."cancelled_at" IS NOT NULL THEN
    RETURN QUERY SELECT v_job, 'batch_cancelled'::TEXT;
    RETURN;
  END IF;
  -- An area search whose batch-wide maxResults is reached needs none of its remaining tiles (decision 039).
  IF v_batch."max_results" IS NOT NULL AND v_batch."results_committed" >= v_batch."max_results" THEN
    RETURN QUERY SELECT v_job, 'batch_budget_exhausted'::TEXT;
    RETURN;
  END IF;
  v_reserve := v_job."reserve_on_start";
  IF v_batch."max_credits" IS NOT NULL AND v_batch."credits_charged" + v_batch."credits_reserved" + v_reserve > v_batch."max_credits" THEN
    RETURN QUERY SELECT v_job, 'batch_budget_exhausted'::TEXT;
    RETURN;
  END IF;
  IF reserve_credits(v_job."account_id", p_job_id, v_reserve) IS NOT NULL THEN
    RETURN QUERY SELECT v_job, 'batch_budget_exhausted'::TEXT;
    RETURN;
  END IF;
  UPDATE "batches" SET "credits_reserved" = "credits_reserved" + v_reserve WHERE "id" = v_batch."id";
  INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (v_job."account_id", p_job_id, 'reserve', v_reserve);
  UPDATE "jobs" SET "status" = 'running', "provider" = p_provider, "credits_reserved" = v_reserve,
    "started_at" = COALESCE("started_at", p_started_at, now()), "released_at" = COALESCE("released_at", now()), "updated_at" = now()
  WHERE "id" = p_job_id
  RETURNING * INTO v_job;
  RETURN QUERY SELECT v_job, NULL::TEXT;
END
$$;
