-- Area searches (issue 35, decision 039): a batch over an area, whose children are the area's tiles.
-- batches.area: the area as the tiling and the clipping use it (polygons, bounds, km², how it was given);
-- batches.quote_id: the quote the batch was made from. Both null for a batch of requests.
ALTER TABLE "batches" ADD COLUMN "area" JSONB;
ALTER TABLE "batches" ADD COLUMN "quote_id" TEXT;

-- One row per tile of an area batch: the rectangle a child searches (or searched), and what became of it.
-- A saturated tile's quarters are added with their children in one statement (split_batch_tile), keyed by
-- (batch_id, path), so a worker that repeats a split after a crash adds nothing twice.
CREATE TABLE "batch_tiles" (
    "batch_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "rect" JSONB NOT NULL,
    -- searching: its child is open; done: it listed fewer than Google's maximum; split: it was saturated and
    -- its quarters were added; saturated_at_minimum: saturated at the minimum size, recorded, not split
    "state" TEXT NOT NULL DEFAULT 'searching',
    -- places its search listed, and those outside the area (neither delivered nor billed)
    "found" INTEGER,
    "outside_area" INTEGER,
    CONSTRAINT "batch_tiles_pkey" PRIMARY KEY ("batch_id", "path"),
    CONSTRAINT "batch_tiles_state_check" CHECK ("state" IN ('searching', 'done', 'split', 'saturated_at_minimum'))
);
CREATE UNIQUE INDEX "batch_tiles_job_id_key" ON "batch_tiles"("job_id");
ALTER TABLE "batch_tiles" ADD CONSTRAINT "batch_tiles_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A quote (POST /leads/quotes): the tiling of an area for a request, counted with the cheapest field masks,
-- kept so that a batch can be made from it (its leaf tiles become the children, no saturated tile asked again).
CREATE TABLE "area_quotes" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "area" JSONB NOT NULL,
    -- the leaf tiles: [{ path, rect, places }]
    "tiles" JSONB NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "area_quotes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "area_quotes_account_id_created_at_idx" ON "area_quotes"("account_id", "created_at");
ALTER TABLE "area_quotes" ADD CONSTRAINT "area_quotes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
