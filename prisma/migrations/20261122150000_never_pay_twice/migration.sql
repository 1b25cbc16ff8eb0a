-- Never paying twice for the same lead (issue 11): every lead an account receives is remembered by
-- its dedup key (place id, profile URL, store domain) per source, and a job that asks to
-- `excludeDelivered` claims each key here before it delivers it. The primary key makes the claim
-- exclusive: two such jobs of one account racing over one area never both deliver a lead.
CREATE TABLE "account_deliveries" (
  "account_id" TEXT NOT NULL,
  "source" "Source" NOT NULL,
  "dedup_key" TEXT NOT NULL,
  "job_id" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "account_deliveries_pkey" PRIMARY KEY ("account_id", "source", "dedup_key")
);
ALTER TABLE "account_deliveries" ADD CONSTRAINT "account_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What a job passed over because the account already had it (shown in the job body).
ALTER TABLE "jobs" ADD COLUMN "skipped_already_delivered" INTEGER NOT NULL DEFAULT 0;

-- An account's suppression list: domains, emails and phone numbers (in the normal forms of
-- packages/domain/src/suppressions.ts) whose leads are never delivered nor billed, in any job.
CREATE TYPE "SuppressionKind" AS ENUM ('domain', 'email', 'phone');
CREATE TABLE "suppressions" (
  "account_id" TEXT NOT NULL,
  "kind" "SuppressionKind" NOT NULL,
  "value" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "suppressions_pkey" PRIMARY KEY ("account_id", "kind", "value")
);
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "jobs" ADD COLUMN "skipped_suppressed" INTEGER NOT NULL DEFAULT 0;

-- Earlier deliveries count too.
INSERT INTO "account_deliveries" ("account_id", "source", "dedup_key", "job_id", "created_at")
SELECT DISTINCT ON (j."account_id", j."source", l."dedup_key") j."account_id", j."source", l."dedup_key", j."id", l."created_at"
FROM "leads" l JOIN "jobs" j ON j."id" = l."job_id"
ORDER BY j."account_id", j."source", l."dedup_key", l."created_at";

-- One page of leads (a PL/pgSQL function for its kept plans, as those of 20261122130000): lock the
-- job while it is not terminal, then, with a snapshot taken after the lock (so a second worker's page
-- committed meanwhile is seen), insert the leads the result set does not have, at most what is
-- missing, numbered on from the delivered count; advance count and cursor. No row back: the job is
-- terminal and nothing was written. Besides:
-- - a lead matching the account's suppression list (each item's `m`: the kinds and values it can
--   match) is passed over and counted; when the account has a list and the page came without `m`,
--   it writes nothing and answers `o_needs_matches`, so workers read leads' domains, emails and
--   phones only for accounts that keep a list;
-- - every delivered lead's key is remembered for the account, and a job whose request has
--   `excludeDelivered` delivers only keys it can claim (in page order, up to what is still missing)
--   and counts the ones it passed over.
CREATE FUNCTION "commit_page"(p_job_id TEXT, p_items JSONB, p_cursor TEXT)
RETURNS TABLE (o_delivered_count INTEGER, o_requested_count INTEGER, o_needs_matches BOOLEAN)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_account_id TEXT;
  v_source "Source";
  v_exclude BOOLEAN;
  v_requested INTEGER;
  v_delivered INTEGER;
  v_added INTEGER := 0;
  v_skipped INTEGER := 0;
  v_item RECORD;
  v_claimed INTEGER;
  v_suppressed TEXT[] := '{}';
BEGIN
  SELECT j."account_id", j."source", COALESCE((j."request"->>'excludeDelivered')::BOOLEAN, false), j."requested_count", j."delivered_count"
  INTO v_account_id, v_source, v_exclude, v_requested, v_delivered
  FROM "jobs" j
  WHERE j."id" = p_job_id AND j."status" IN ('queued', 'running')
  FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;

  -- Only an account with a list pays for the lookups: one primary-key probe per value a lead can match.
  IF EXISTS (SELECT 1 FROM "suppressions" s WHERE s."account_id" = v_account_id) THEN
    IF jsonb_array_length(p_items) > 0 AND NOT (p_items->0 ? 'm') THEN
      RETURN QUERY SELECT v_delivered, v_requested, true;
      RETURN;
    END IF;
    SELECT COALESCE(array_agg(DISTINCT p.item->>'k'), '{}') INTO v_suppressed
    FROM jsonb_array_elements(p_items) AS p(item)
    WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."dedup_key" = p.item->>'k')
      AND EXISTS (
        SELECT 1 FROM jsonb_array_elements(COALESCE(p.item->'m', '[]'::jsonb)) AS x(entry)
        JOIN "suppressions" s ON s."account_id" = v_account_id AND s."kind" = (x.entry->>'t')::"SuppressionKind" AND s."value" = x.entry->>'v'
      );
  END IF;

  IF NOT v_exclude THEN
    -- Set-based: the page's new leads, then their keys remembered for the account.
    WITH page AS (
      SELECT DISTINCT ON (p.item->>'k') p.item->>'k' AS dedup_key, p.item->'d' AS data, p.ord
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS p(item, ord)
      WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."dedup_key" = p.item->>'k')
        AND NOT (p.item->>'k' = ANY(v_suppressed))
      ORDER BY p.item->>'k', p.ord
    ), fresh AS (
      SELECT page.dedup_key, page.data, row_number() OVER (ORDER BY page.ord) - 1 AS n FROM page
    ), inserted AS (
      INSERT INTO "leads" ("job_id", "position", "dedup_key", "data")
      SELECT p_job_id, v_delivered + fresh.n, fresh.dedup_key, fresh.data FROM fresh WHERE fresh.n < v_requested - v_delivered
      RETURNING "dedup_key"
    ), remembered AS (
      INSERT INTO "account_deliveries" ("account_id", "source", "dedup_key", "job_id")
      SELECT v_account_id, v_source, inserted."dedup_key", p_job_id FROM inserted
      ON CONFLICT DO NOTHING
    )
    SELECT count(*) INTO v_added FROM inserted;
  ELSE
    -- One lead at a time, in page order: a key is delivered only if this job can claim it.
    FOR v_item IN
      SELECT q.dedup_key, q.data FROM (
        SELECT DISTINCT ON (p.item->>'k') p.item->>'k' AS dedup_key, p.item->'d' AS data, p.ord
        FROM jsonb_array_elements(p_items) WITH ORDINALITY AS p(item, ord)
        WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."dedup_key" = p.item->>'k')
          AND NOT (p.item->>'k' = ANY(v_suppressed))
        ORDER BY p.item->>'k', p.ord
      ) q ORDER BY q.ord
    LOOP
      EXIT WHEN v_delivered + v_added >= v_requested;
      INSERT INTO "account_deliveries" ("account_id", "source", "dedup_key", "job_id")
      VALUES (v_account_id, v_source, v_item.dedup_key, p_job_id)
      ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS v_claimed = ROW_COUNT;
      IF v_claimed = 0 THEN
        v_skipped := v_skipped + 1;
      ELSE
        INSERT INTO "leads" ("job_id", "position", "dedup_key", "data") VALUES (p_job_id, v_delivered + v_added, v_item.dedup_key, v_item.data);
        v_added := v_added + 1;
      END IF;
    END LOOP;
  END IF;

  UPDATE "jobs" SET "delivered_count" = v_delivered + v_added, "skipped_already_delivered" = "skipped_already_delivered" + v_skipped,
    "skipped_suppressed" = "skipped_suppressed" + cardinality(v_suppressed),
    "cursor" = p_cursor, "updated_at" = now()
  WHERE "id" = p_job_id;
  RETURN QUERY SELECT v_delivered + v_added, v_requested, false;
END
$$;
