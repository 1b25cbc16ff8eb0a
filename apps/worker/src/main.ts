import { loadConfigOrExit } from '@leadgen/config';
import { logger, setProcessName } from '@leadgen/logger';
import { startWorker } from './worker-runtime';

async function main(): Promise<void> {
  setProcessName('worker');
  const config = loadConfigOrExit();
  const worker = await startWorker(config);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('worker stopping', { signal });
    await worker.close();
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
