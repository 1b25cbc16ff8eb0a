-- commit_page: one page of a job's leads. Lock the job while it is not terminal, then, with a snapshot
-- taken after the lock (so a second worker's page committed meanwhile is seen), insert the leads the result
-- set does not have, at most what is missing, numbered on from the delivered count; advance count and cursor.
-- Besides:
-- - a lead matching the account's suppression list, or the global one of erased subjects (each item's `m`: the
--   kinds and values it can match; the global list is read after the job lock, so an erasure that committed
--   before this page's lock is honoured, and one that came later waits at its barrier for this commit), is
--   passed over and counted; when the account has a list and the page came without `m`, it writes nothing and
--   answers o_needs_matches, so workers read leads' domains, emails and phones only for accounts with a list;
-- - every delivered lead's key is remembered for the account (account_deliveries, as its SHA-256 in hex: a
--   LinkedIn lead's key is the person's profile URL, and the memory outlives the leads, decision 019), and a job
--   whose request has `excludeDelivered` delivers only keys it can claim (in page order, up to what is still
--   missing) and counts the ones it passed over (docs/decisions/014-never-paying-twice.md);
-- - a batch's child delivers only keys it claims for the batch (batch_deliveries, as the key's SHA-256 in hex,
--   the same digest as account_deliveries: the claims are personal data's stand-ins too): the page's new keys
--   are claimed first, in digest order (so two children claiming overlapping pages at once wait for each other
--   instead of deadlocking), a key another child holds is passed over and counted as already delivered, and
--   the claims of keys this page did not deliver after all (past what was missing) are given back
--   (docs/decisions/021-batches.md).
-- - the page's filtered leads (p_filtered: the request's filters left them out in the worker, decision 038) are
--   counted in skipped_filtered, and the upstream calls made since the previous commit (p_upstream_calls, by
--   upstream) are added to upstream_calls: one statement still, and nothing once the job is terminal.
-- - a child of a batch with max_results (an area search's batch-wide maxResults, decision 039) takes the batch
--   row's lock and delivers at most what the batch still lacks (results_committed, kept here); when the batch is
--   full, a child that delivered something has its requested_count lowered to what it delivered (it is complete:
--   the batch needed no more of it), and every child's o_requested_count says how many it may deliver, so its
--   worker stops asking its upstream. Other batches and jobs never take that lock.
-- - each lead carries its job's created_at, the key leads are partitioned by (decision 046): all of a job's leads
--   are in one partition, whose unique indexes make each key and position once per job. Each look-up names the
--   key, so it reads that partition only (and leads_legacy's -infinity, where leads stored before partitioning are).
-- Called by: packages/db/src/page-commit.ts (commitPage), and commit_slice.
-- Locks: the jobs row (FOR UPDATE), then (a child of a batch with max_results) the batches row, then
--   batch_deliveries keys it claims (a batch's child), then account_deliveries keys it claims. settle_job and
--   start_job take jobs before batches too.
-- Guarantees: no row back when the job is terminal and nothing was written; a lead is delivered at most once
--   per result set, at most once per batch, and at most once per account for an excludeDelivered job.

CREATE OR REPLACE FUNCTION "commit_page"(p_job_id TEXT, p_items JSONB, p_cursor TEXT, p_filtered INTEGER, p_upstream_calls JSONB)
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
  v_batch_id TEXT;
  v_batch_lost TEXT[] := '{}';
  v_batch_claimed TEXT[] := '{}';
  v_digest TEXT;
  v_listed BOOLEAN;
  v_capped BOOLEAN := false;
  v_room INTEGER;
  v_job_created_at TIMESTAMPTZ;
BEGIN
  SELECT j."account_id", j."source", COALESCE((j."request"->>'excludeDelivered')::BOOLEAN, false), j."requested_count", j."delivered_count", j."batch_id", j."created_at"
  INTO v_account_id, v_source, v_exclude, v_requested, v_delivered, v_batch_id, v_job_created_at
  FROM "jobs" j
  WHERE j."id" = p_job_id AND j."status" IN ('queued', 'running')
  FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;

  IF v_batch_id IS NOT NULL THEN
    -- A batch-wide maxResults: what the batch still lacks bounds this page, under the batch row's lock.
    SELECT b."max_results" - b."results_committed" INTO v_room
    FROM "batches" b WHERE b."id" = v_batch_id AND b."max_results" IS NOT NULL FOR UPDATE;
    IF FOUND THEN
      v_capped := true;
      v_requested := LEAST(v_requested, v_delivered + GREATEST(v_room, 0));
    END IF;
  END IF;

  -- Only an account with a list (or a fleet with erased subjects) pays for the lookups: one primary-key probe
  -- per value a lead can match. The two statements that read the account's list are EXECUTEd, so each call
  -- plans them for the list as it is now: a plan kept from when the list was small (this function's generic
  -- plans live as long as the connection) would scan the whole list once it has grown (issue 31, finding 4).
  EXECUTE 'SELECT EXISTS (SELECT 1 FROM "suppressions" s WHERE s."account_id" = $1) OR EXISTS (SELECT 1 FROM "global_suppressions")'
    INTO v_listed USING v_account_id;
  IF v_listed THEN
    -- (nothing is written here, the filtered count and calls included: the page is sent again with `m`)
    IF jsonb_array_length(p_items) > 0 AND NOT (p_items->0 ? 'm') THEN
      RETURN QUERY SELECT v_delivered, v_requested, true;
      RETURN;
    END IF;
    EXECUTE $q$
    SELECT COALESCE(array_agg(DISTINCT p.item->>'k'), '{}')
    FROM jsonb_array_elements($1) AS p(item)
    WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = $2 AND l."job_created_at" IN ('-infinity', $4) AND l."dedup_key" = p.item->>'k')
      -- Two joins, each an index probe per value. Not one EXISTS with an OR inside: the planner may hash
      -- the whole list for that (an account's 100,000 entries per page commit).
      AND (
        EXISTS (
          SELECT 1 FROM jsonb_array_elements(COALESCE(p.item->'m', '[]'::jsonb)) AS x(entry)
          JOIN "suppressions" s ON s."account_id" = $3 AND s."kind" = (x.entry->>'t')::"SuppressionKind" AND s."value" = x.entry->>'v'
        )
        OR EXISTS (
          SELECT 1 FROM jsonb_array_elements(COALESCE(p.item->'m', '[]'::jsonb)) AS x(entry)
          JOIN "global_suppressions" g ON g."kind" = (x.entry->>'t')::"SuppressionKind" AND g."value" = x.entry->>'v'
        )
      )$q$
    INTO v_suppressed USING p_items, p_job_id, v_account_id, v_job_created_at;
  END IF;

  IF v_batch_id IS NOT NULL THEN
    -- The batch's claims (the keys' digests), in digest order; the keys another child of the batch holds are
    -- passed over. v_batch_claimed and v_batch_lost hold the keys themselves, as the rest of the page compares.
    WITH candidates AS (
      SELECT DISTINCT p.item->>'k' AS dedup_key, encode(sha256(convert_to(p.item->>'k', 'UTF8')), 'hex') AS digest
      FROM jsonb_array_elements(p_items) AS p(item)
      WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."job_created_at" IN ('-infinity', v_job_created_at) AND l."dedup_key" = p.item->>'k')
        AND NOT (p.item->>'k' = ANY(v_suppressed))
    ), claimed AS (
      INSERT INTO "batch_deliveries" ("batch_id", "source", "dedup_key", "job_id")
      SELECT v_batch_id, v_source, c.digest, p_job_id FROM candidates c ORDER BY c.digest
      ON CONFLICT DO NOTHING
      RETURNING "dedup_key" AS digest
    )
    -- (a data-modifying CTE's rows are not visible to the rest of its statement: lost = candidates - claimed)
    SELECT COALESCE((SELECT array_agg(c.dedup_key) FROM candidates c WHERE c.digest IN (SELECT claimed.digest FROM claimed)), '{}'),
      COALESCE((SELECT array_agg(c.dedup_key) FROM candidates c WHERE c.digest NOT IN (SELECT claimed.digest FROM claimed)), '{}')
    INTO v_batch_claimed, v_batch_lost;
    v_skipped := cardinality(v_batch_lost);
    v_suppressed := v_suppressed || v_batch_lost;
  END IF;

  IF NOT v_exclude THEN
    -- Set-based: the page's new leads, then their keys remembered for the account.
    WITH page AS (
      SELECT DISTINCT ON (p.item->>'k') p.item->>'k' AS dedup_key, p.item->'d' AS data, p.ord
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS p(item, ord)
      WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."job_created_at" IN ('-infinity', v_job_created_at) AND l."dedup_key" = p.item->>'k')
        AND NOT (p.item->>'k' = ANY(v_suppressed))
      ORDER BY p.item->>'k', p.ord
    ), fresh AS (
      SELECT page.dedup_key, page.data, row_number() OVER (ORDER BY page.ord) - 1 AS n FROM page
    ), inserted AS (
      INSERT INTO "leads" ("job_id", "job_created_at", "position", "dedup_key", "data")
      SELECT p_job_id, v_job_created_at, v_delivered + fresh.n, fresh.dedup_key, fresh.data FROM fresh WHERE fresh.n < v_requested - v_delivered
      RETURNING "dedup_key"
    ), remembered AS (
      INSERT INTO "account_deliveries" ("account_id", "source", "dedup_key", "job_id")
      SELECT v_account_id, v_source, encode(sha256(convert_to(inserted."dedup_key", 'UTF8')), 'hex'), p_job_id FROM inserted
      ON CONFLICT DO NOTHING
    )
    SELECT count(*) INTO v_added FROM inserted;
  ELSE
    -- One lead at a time, in page order: a key is delivered only if this job can claim it.
    FOR v_item IN
      SELECT q.dedup_key, q.data FROM (
        SELECT DISTINCT ON (p.item->>'k') p.item->>'k' AS dedup_key, p.item->'d' AS data, p.ord
        FROM jsonb_array_elements(p_items) WITH ORDINALITY AS p(item, ord)
        WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."job_created_at" IN ('-infinity', v_job_created_at) AND l."dedup_key" = p.item->>'k')
          AND NOT (p.item->>'k' = ANY(v_suppressed))
        ORDER BY p.item->>'k', p.ord
      ) q ORDER BY q.ord
    LOOP
      EXIT WHEN v_delivered + v_added >= v_requested;
      INSERT INTO "account_deliveries" ("account_id", "source", "dedup_key", "job_id")
      VALUES (v_account_id, v_source, encode(sha256(convert_to(v_item.dedup_key, 'UTF8')), 'hex'), p_job_id)
      ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS v_claimed = ROW_COUNT;
      IF v_claimed = 0 THEN
        v_skipped := v_skipped + 1;
      ELSE
        INSERT INTO "leads" ("job_id", "job_created_at", "position", "dedup_key", "data")
        VALUES (p_job_id, v_job_created_at, v_delivered + v_added, v_item.dedup_key, v_item.data);
        v_added := v_added + 1;
      END IF;
    END LOOP;
  END IF;

  IF v_batch_id IS NOT NULL THEN
    -- Claimed but not delivered (the job had enough): the batch's other children may deliver them.
    -- One primary-key probe per claim given back (usually none): a filter over the batch's claims would read all
    -- of them on every page, a cost growing with the batch.
    FOR v_digest IN
      SELECT encode(sha256(convert_to(k.dedup_key, 'UTF8')), 'hex') FROM unnest(v_batch_claimed) AS k(dedup_key)
      WHERE NOT EXISTS (SELECT 1 FROM "leads" l WHERE l."job_id" = p_job_id AND l."job_created_at" IN ('-infinity', v_job_created_at) AND l."dedup_key" = k.dedup_key)
    LOOP
      DELETE FROM "batch_deliveries" d
      WHERE d."batch_id" = v_batch_id AND d."source" = v_source AND d."dedup_key" = v_digest AND d."job_id" = p_job_id;
    END LOOP;
  END IF;

  UPDATE "jobs" SET "delivered_count" = v_delivered + v_added, "skipped_already_delivered" = "skipped_already_delivered" + v_skipped,
    "skipped_suppressed" = "skipped_suppressed" + cardinality(v_suppressed) - cardinality(v_batch_lost),
    "skipped_filtered" = "skipped_filtered" + GREATEST(COALESCE(p_filtered, 0), 0),
    -- calls by upstream, summed key by key with what earlier commits recorded (usually one or two keys)
    "upstream_calls" = CASE WHEN p_upstream_calls IS NULL OR p_upstream_calls = '{}'::jsonb THEN "upstream_calls" ELSE (
      SELECT COALESCE(jsonb_object_agg(k, n), '{}'::jsonb) FROM (
        SELECT e.key AS k, sum(e.value::INTEGER) AS n
        FROM (SELECT * FROM jsonb_each_text("upstream_calls") UNION ALL SELECT * FROM jsonb_each_text(p_upstream_calls)) e
        GROUP BY e.key
      ) totals
    ) END,
    "cursor" = p_cursor, "updated_at" = now(),
    -- the batch is full: a child that delivered something is complete with it (one that delivered nothing keeps
    -- its count and is settled CANCELLED batch_budget_exhausted by its worker)
    "requested_count" = CASE WHEN v_capped AND v_delivered + v_added >= v_requested AND v_delivered + v_added > 0
      THEN LEAST("requested_count", v_requested) ELSE "requested_count" END
  WHERE "id" = p_job_id;
  IF v_capped AND v_added > 0 THEN
    UPDATE "batches" SET "results_committed" = "results_committed" + v_added WHERE "id" = v_batch_id;
  END IF;
  RETURN QUERY SELECT v_delivered + v_added, v_requested, false;
END
$$;
