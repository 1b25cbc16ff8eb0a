import { loadConfigOrExit, opsPort } from '@leadgen/config';
import { logger, setProcessName } from '@leadgen/logger';
import { collectProcessMetrics, metricsRoute, startOpsServer, startingReport } from '@leadgen/ops';
import { startApi, type RunningApi } from './start-api';

async function main(): Promise<void> {
  setProcessName('api');
  const config = loadConfigOrExit();
  collectProcessMetrics();
  // The operations port first, so liveness answers while the API is still connecting.
  let api: RunningApi | null = null;
  const ops = await startOpsServer({
    host: config.ops.host,
    port: opsPort(config, 'api'),
    routes: { '/metrics': metricsRoute },
    readiness: () => (api ? api.readiness() : Promise.resolve(startingReport())),
  });
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
  logger.error('api failed to start', { error });
  process.exit(1);
});
