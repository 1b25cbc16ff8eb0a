-- record_job_event: the event a terminal status raises (its name, job.completed, job.partial, ..., given by the
-- caller from packages/domain's JOB_EVENT_OF: the one place event names are written), recorded as one
-- webhook_deliveries row for every enabled endpoint of the account subscribed to it and one for the job's
-- own webhookUrl: the outbox (docs/decisions/016-webhooks.md).
-- Called by: settle_job, in the settlement's transaction.
-- Locks: nothing beyond the rows it inserts.
-- Guarantees: the new deliveries' ids, for the settler to enqueue at once (the outbox sweep enqueues any it
--   could not); none for a job whose account has no subscribed endpoint and which has no webhookUrl.

CREATE OR REPLACE FUNCTION "record_job_event"(p_job "jobs", p_event_type TEXT)
RETURNS TEXT[]
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_ids TEXT[];
BEGIN
  WITH inserted AS (
    INSERT INTO "webhook_deliveries" ("account_id", "endpoint_id", "url", "job_id", "event_type")
    SELECT p_job."account_id", e."id", NULL, p_job."id", p_event_type FROM "webhook_endpoints" e
    WHERE e."account_id" = p_job."account_id" AND e."disabled_at" IS NULL AND e."events" ? p_event_type
    UNION ALL
    SELECT p_job."account_id", NULL, p_job."webhook_url", p_job."id", p_event_type WHERE p_job."webhook_url" IS NOT NULL
    RETURNING "id"
  )
  SELECT COALESCE(array_agg(inserted."id"), '{}') INTO v_ids FROM inserted;
  RETURN v_ids;
END
$$;
