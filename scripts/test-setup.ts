// Before the suite: a fresh test database with every migration applied, so each run starts clean.
// Runs once per `npm test`, not per test file; test files then own their accounts and run in parallel.
import { dropDatabase, migrate } from '@leadgen/db';

const url = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen_test';

async function main(): Promise<void> {
  await dropDatabase(url);
  const result = await migrate(url);
  console.log(
    `test database ${new URL(url).pathname.slice(1)}: applied ${result.applied.length} migration(s), ${result.functions.length} function file(s)`,
  );
}

main().catch((error: Error) => {
  console.error(`test setup failed: ${error.message}`);
  process.exit(1);
});
