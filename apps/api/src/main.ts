import { loadConfigOrExit } from '@leadgen/config';
import { logger, setProcessName } from '@leadgen/logger';
import { startApi } from './server';

async function main(): Promise<void> {
  setProcessName('api');
  const config = loadConfigOrExit();
  const api = await startApi(config);
  logger.info('api listening', { port: api.port, syncWaitMs: config.api.syncWaitMs, operatorBoard: Boolean(config.operatorPassword) });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('api stopping', { signal });
    await api.close();
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
