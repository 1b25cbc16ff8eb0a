-- runtime_role_timeouts: bounds every session of the runtime role in this database (issue 39; decision 043):
-- statement_timeout, lock_timeout and idle_in_transaction_session_timeout as the role's defaults here (ALTER ROLE ...
-- IN DATABASE ... SET), so they reach every connection, behind PgBouncer in transaction mode too (no startup
-- parameter, no session SET). The long maintenance operations (account deletion, erasure, retention) run in bounded
-- batches, each far inside them; a statement that must run longer says so with SET LOCAL in its own transaction.
-- Called by: packages/db/src/migrator.ts (migrate, with `runtimeRole` and `runtimeTimeouts`), after grant_runtime_role,
--   with DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_LOCK_TIMEOUT_MS and DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS.
-- Locks: nothing beyond ALTER ROLE's catalog row.
-- Guarantees: new sessions of the role get the three values (0: none); sessions open already keep theirs until they
--   reconnect. Returns false, with a warning, when the migrating role may not alter the runtime role (it needs
--   CREATEROLE): the operator then sets them by hand (docs/operations.md, "Database timeouts").

CREATE OR REPLACE FUNCTION "runtime_role_timeouts"(p_role NAME, p_statement_ms INTEGER, p_lock_ms INTEGER, p_idle_ms INTEGER)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET statement_timeout = %s', p_role, current_database(), p_statement_ms);
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET lock_timeout = %s', p_role, current_database(), p_lock_ms);
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET idle_in_transaction_session_timeout = %s', p_role, current_database(), p_idle_ms);
  RETURN true;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'the migrating role may not set the timeouts of %: set them by hand (docs/operations.md)', p_role;
  RETURN false;
END
$$;

REVOKE EXECUTE ON FUNCTION "runtime_role_timeouts"(NAME, INTEGER, INTEGER, INTEGER) FROM PUBLIC;
