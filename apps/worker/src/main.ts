import { loadConfigOrExit, opsPort } from '@leadgen/config';
import { logger, setProcessName } from '@leadgen/logger';
import { collectProcessMetrics, metricsRoute, startOpsServer, startingReport } from '@leadgen/ops';
import { startWorker, type RunningWorker } from './start-worker';

async function main(): Promise<void> {
  setProcessName('worker');
  const config = loadConfigOrExit();
  collectProcessMetrics();
  // The operations port first, so liveness answers while the consumers connect.
  let worker: RunningWorker | null = null;
  const ops = await startOpsServer({
    host: config.ops.host,
    port: opsPort(config, 'worker'),
    routes: { '/metrics': metricsRoute },
    readiness: () => (worker ? worker.readiness() : Promise.resolve(startingReport())),
  });
  if (ops) logger.info('operations port listening', { opsPort: ops.port });
  worker = await startWorker(config);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('worker stopping', { signal });
    // /readyz answers 503 while the jobs held are finished or handed back.
    await worker?.close();
    await ops?.close();
    logger.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: Error) => {
  logger.error('worker failed to start', { error });
  process.exit(1);
});
