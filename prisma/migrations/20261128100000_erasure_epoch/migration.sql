-- Erasure that a cache cannot undo (issue 31, finding 8; decision 031): one row whose epoch every
-- statement that deletes leads raises in its own transaction (subject erasure, lead retention, an
-- account's deletion by cascade). An API process keeps finished jobs' bodies only with the epoch they
-- were read under, and reads the epoch again at most ERASURE_EPOCH_MAX_AGE_MS before it serves one, so
-- a body from before an erasure is never served once that bound has passed after the erasure committed,
-- whatever Redis, QUEUE_PREFIX or pub/sub did.
CREATE TABLE "erasure_epoch" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "epoch" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "erasure_epoch_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "erasure_epoch_one_row" CHECK ("id" = 1)
);
INSERT INTO "erasure_epoch" ("id", "epoch") VALUES (1, 0);
-- The trigger that raises it: prisma/functions/raise_erasure_epoch.sql.
