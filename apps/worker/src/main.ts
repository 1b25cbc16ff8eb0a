import { loadConfigOrExit, opsPort, refuseSandboxInProduction } from '@leadgen/config';
import { logger, setLogLevel, setProcessName } from '@leadgen/logger';
import {
  collectProcessMetrics,
  metricsRoute,
  startOpsServer,
  startingReport,
  startupFailureLine,
  type ReadinessReport,
} from '@leadgen/ops';
import { assertDatabaseLogin } from '@leadgen/db';
import { startWorker, type RunningWorker } from './start-worker';
import { waitForRedis } from './wait-for-redis';

let ports: Record<string, number | null> = {};

async function main(): Promise<void> {
  setProcessName('worker');
  const config = loadConfigOrExit('worker');
  refuseSandboxInProduction(config, config.worker.sources);
  setLogLevel(config.log.level);
  collectProcessMetrics();
  // The operations port first, so liveness answers while the consumers connect.
  let worker: RunningWorker | null = null;
  let redisDown = false;
  const waitingForRedis: ReadinessReport = {
    ready: false,
    status: 'unavailable',
    checks: { redis: 'unavailable' },
    detail: 'Redis does not answer at REDIS_URL',
  };
  ports = { OPS_PORT: opsPort(config, 'worker') };
  const ops = await startOpsServer({
    host: config.ops.host,
    port: opsPort(config, 'worker'),
    routes: { '/metrics': metricsRoute },
    readiness: () => (worker ? worker.readiness() : Promise.resolve(redisDown ? waitingForRedis : startingReport())),
  });
  if (ops) logger.info('operations port listening', { opsPort: ops.port });
  await waitForRedis(config.redis, (waiting) => (redisDown = waiting));
  // As the API: a DATABASE_URL PostgreSQL refuses stops the start, named in one line.
  await assertDatabaseLogin(config.database.url);
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
  const line = startupFailureLine('worker', error, ports);
  if (line) process.stderr.write(`${line}\n`);
  else logger.error('worker failed to start', { error });
  process.exit(1);
});
