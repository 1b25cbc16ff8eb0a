-- record_job_event now takes the event's name from its caller (prisma/functions/record_job_event.sql), so event
-- names are written once, in packages/domain. Its one-argument form was called only by settle_job, which the
-- function files replace in this same transaction; nothing of the previous release calls it directly.
DROP FUNCTION IF EXISTS "record_job_event"("jobs");
