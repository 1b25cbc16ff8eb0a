-- grant_runtime_role: gives the role the API, workers and admin CLI connect as (DATABASE_URL) what they use and
-- nothing more, so that role cannot TRUNCATE, disable a trigger, change a table or set session_replication_role
-- (docs/decisions/035-database-roles-and-uploads-off-the-loop.md). Only an owner of the tables can: whoever runs db:migrate.
-- Called by: packages/db/src/migrator.ts (migrate, with `runtimeRole`), after every migration run, so a table a
--   migration adds is granted before any process of the release reads it. Never by the runtime role (EXECUTE is
--   revoked from PUBLIC below; it would fail anyway: only an owner grants).
-- Locks: nothing beyond what GRANT and REVOKE take on the catalogs.
-- Guarantees: the runtime role can read and write rows (SELECT, INSERT, UPDATE, DELETE: no TRUNCATE, REFERENCES or
--   TRIGGER), use the sequences, read the migrator's bookkeeping (readiness compares it with the build) and run the
--   functions; it can neither UPDATE the append-only tables nor DELETE a ledger row (an account's deletion removes
--   them through delete_account_ledger, SECURITY DEFINER, once the account row is gone; decision 043). Idempotent.

CREATE OR REPLACE FUNCTION "grant_runtime_role"(p_role NAME) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_partition TEXT;
BEGIN
  IF p_role = current_user THEN
    RAISE EXCEPTION 'the runtime role must not be the migrating role (%): it would own the tables', p_role;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), p_role);
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', p_role);
  EXECUTE format('REVOKE CREATE ON SCHEMA public FROM %I', p_role);
  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA public FROM %I', p_role);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %I', p_role);
  -- Append-only: their triggers refuse these too; without the privilege not even a trigger change could allow them.
  EXECUTE format('REVOKE UPDATE ON "audit_events", "credit_ledger" FROM %I', p_role);
  -- audit_events' partitions too (decision 053): the service writes through the parent, but a partition is a table
  FOR v_partition IN SELECT relid::regclass::TEXT FROM pg_partition_tree('audit_events') WHERE relid <> 'audit_events'::regclass LOOP
    EXECUTE format('REVOKE UPDATE ON %s FROM %I', v_partition, p_role);
  END LOOP;
  EXECUTE format('REVOKE DELETE ON "credit_ledger" FROM %I', p_role);
  -- The migrator's own tables: read by readiness (schema-status.ts), written only by db:migrate.
  EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON "_prisma_migrations", "_function_files", "_breaking_migrations" FROM %I', p_role);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %I', p_role);
  EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %I', p_role);
  EXECUTE format('REVOKE EXECUTE ON FUNCTION "grant_runtime_role"(NAME) FROM %I', p_role);
  EXECUTE format('REVOKE EXECUTE ON FUNCTION "runtime_role_timeouts"(NAME, INTEGER, INTEGER, INTEGER) FROM %I', p_role);
END
$$;

REVOKE EXECUTE ON FUNCTION "grant_runtime_role"(NAME) FROM PUBLIC;
