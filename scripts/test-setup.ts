// Before the suite: a fresh test database with every migration applied, so each run starts clean.
// Runs once per `npm test`, not per test file; test files then own their accounts and run in parallel.
import { Client } from 'pg';
import { migrate } from '@leadgen/db';

const url = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen_test';

async function main(): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  target.pathname = '/postgres';
  const admin = new Client({ connectionString: target.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  const result = await migrate(url);
  console.log(`test database ${name}: applied ${result.applied.length} migration(s)`);
}

main().catch((error: Error) => {
  console.error(`test setup failed: ${error.message}`);
  process.exit(1);
});
