// `npm start` (and `npm run dev`): everything on one machine for trying the service. Applies
// migrations (creating the database if needed), creates a sandbox account on an empty
// non-production database and prints its key, then runs the API and one worker for every source as
// two child processes. Exits non-zero when either fails; each has its own operations port (OPS_PORT
// for the API, the next one for the worker).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_OPS_PORTS, loadConfigOrExit } from '@leadgen/config';
import { startupFailureLine } from '@leadgen/ops';
import {
  countAccounts,
  createAccount,
  createDatabase,
  grantCredits,
  issueApiKey,
  migrate,
  sealPlainWebhookSecrets,
  inTransaction,
} from '@leadgen/db';

const SANDBOX_CREDITS = 10_000;

async function bootstrapAccount(databaseUrl: string, port: number): Promise<void> {
  const db = createDatabase(databaseUrl, { poolSize: 1 });
  try {
    if ((await countAccounts(db)) > 0) return;
    const { accountId, apiKey } = await inTransaction(db, async (tx) => {
      const account = await createAccount(tx, 'sandbox');
      await grantCredits(tx, account.id, SANDBOX_CREDITS);
      return { accountId: account.id, ...(await issueApiKey(tx, account.id)) };
    });
    console.log(`
  Created account ${accountId} with ${SANDBOX_CREDITS} sandbox credits.
  Its API key (shown once; store it now):

    export LEADGEN_API_KEY=${apiKey}

  Try it:
    curl -s -X POST http://localhost:${port}/api/v1/leads/generate \\
      -H "Authorization: Bearer $LEADGEN_API_KEY" -H "Content-Type: application/json" \\
      -H "Idempotency-Key: $(date +%s)" -d '{"category":"dentist","state":"US","city":"Austin","maxResults":5}'
`);
  } finally {
    await db.$disconnect();
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // One host runs the whole service here: outside production nothing of the previous release runs beside it.
  const result = await migrate(config.database.url, { allowBreaking: config.env !== 'production' });
  await sealPlainWebhookSecrets(config.database.url, config.secrets.encryptionKeys);
  if (result.createdDatabase) console.log('Created the database.');
  if (result.applied.length > 0) console.log(`Applied migrations: ${result.applied.join(', ')}`);
  if (result.functions.length > 0) console.log(`Applied function files: ${result.functions.join(', ')}`);
  if (config.env !== 'production') await bootstrapAccount(config.database.url, config.http.port);

  // Built (`npm start`, dist/start.js) it runs the built api and worker beside it with plain node;
  // through tsx (`npm run dev`) it runs their sources.
  const built = !__filename.endsWith('.ts');
  // One OPS_PORT given to both would collide: the worker takes the next one (0 keeps both off).
  const ops = config.ops.port;
  const opsPorts = { api: ops ?? DEFAULT_OPS_PORTS.api, worker: ops === null ? DEFAULT_OPS_PORTS.worker : ops === 0 ? 0 : ops + 1 };
  const run = (name: 'api' | 'worker'): ChildProcess => {
    const env = { ...process.env, OPS_PORT: String(opsPorts[name]) };
    return built
      ? spawn(process.execPath, [...process.execArgv, path.join(__dirname, `${name}.js`)], { stdio: 'inherit', env })
      : spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, `../apps/${name}/src/main.ts`)], { stdio: 'inherit', env });
  };
  const children = [run('api'), run('worker')];

  let stopping = false;
  let failed = false;
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGTERM'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  for (const [index, child] of children.entries()) {
    child.on('exit', (code, signal) => {
      if (!stopping) {
        // A process that stops by itself has failed (it said why, one line); the rest go too.
        failed = true;
        console.error(`start: the ${index === 0 ? 'api' : 'worker'} stopped (${code ?? signal}); stopping the others`);
        stop('SIGTERM');
      }
      if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(failed ? 1 : 0);
    });
  }
}

main().catch((error: Error) => {
  console.error(startupFailureLine('start', error, {}) ?? `start failed: ${error.message}`);
  process.exit(1);
});
