import { loadConfigOrExit, opsPort, refuseSandboxInProduction } from '@leadgen/config';
import { SOURCES } from '@leadgen/domain';
import { logger, setLogLevel, setProcessName } from '@leadgen/logger';
import { collectProcessMetrics, metricsRoute, startOpsServer, startingReport, startupFailureLine } from '@leadgen/ops';
import { assertDatabaseLogin } from '@leadgen/db';
import { startApi, type RunningApi } from './start-api';

let ports: Record<string, number | null> = {};

async function main(): Promise<void> {
  setProcessName('api');
  const config = loadConfigOrExit('api');
  // The API takes jobs for every source: each must be served by its upstream in production, or the sandbox on purpose.
  refuseSandboxInProduction(config, SOURCES);
  setLogLevel(config.log.level);
  collectProcessMetrics();
  // The operations port first, so liveness answers while the API is still connecting.
  let api: RunningApi | null = null;
  ports = { PORT: config.http.port, OPS_PORT: opsPort(config, 'api') };
  const ops = await startOpsServer({
    host: config.ops.host,
    port: opsPort(config, 'api'),
    routes: { '/metrics': metricsRoute },
    readiness: () => (api ? api.readiness() : Promise.resolve(startingReport())),
  });
  // A DATABASE_URL PostgreSQL refuses is a mistake to fix, not an outage to wait out: one line naming it, exit 1.
  await assertDatabaseLogin(config.database.url);
  api = await startApi(config);
  logger.info('api listening', {
    port: api.port,
    opsPort: ops?.port ?? null,
    syncWaitMs: config.api.syncWaitMs,
    operatorBoard: Boolean(config.operatorPassword),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('api stopping', { signal });
    // /readyz answers 503 on both ports while the API drains, until the very end.
    await api?.close();
    await ops?.close();
    logger.info('api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: Error) => {
  const line = startupFailureLine('api', error, ports);
  if (line) process.stderr.write(`${line}\n`);
  else logger.error('api failed to start', { error });
  process.exit(1);
});
