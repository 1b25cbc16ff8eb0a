// Before the suite: a fresh test database with every migration applied, so each run starts clean.
// Runs once per `npm test`, not per test file; test files then own their accounts and run in parallel.
// TEST_DATABASE_URL's role migrates, as DATABASE_OWNER_URL does in production; the tests' processes connect as
// the runtime role it grants (test/runtime-role.ts, decision 035).
import { loadConfig } from '@leadgen/config';
import { dropDatabase, migrate, runtimeRoleOf } from '@leadgen/db';
import { testDatabaseUrls } from '../test/runtime-role';

const { ownerUrl, runtimeUrl } = testDatabaseUrls(process.env.TEST_DATABASE_URL);

async function main(): Promise<void> {
  await dropDatabase(ownerUrl);
  // The runtime role's timeouts as production's defaults (decision 043), so a test that holds a lock or a statement
  // too long fails here as it would there.
  const { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs } = loadConfig({}).database;
  const result = await migrate(ownerUrl, {
    runtimeRole: runtimeRoleOf(ownerUrl, runtimeUrl),
    runtimeTimeouts: { statementMs: statementTimeoutMs, lockMs: lockTimeoutMs, idleInTransactionMs: idleInTransactionTimeoutMs },
  });
  console.log(
    `test database ${new URL(ownerUrl).pathname.slice(1)}: applied ${result.applied.length} migration(s), ${result.functions.length} function file(s), runtime role ${new URL(runtimeUrl).username}`,
  );
}

main().catch((error: Error) => {
  console.error(`test setup failed: ${error.message}`);
  process.exit(1);
});
