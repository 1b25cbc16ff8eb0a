import type { Source } from '@leadgen/domain';
import { testConfig } from '../../../test/harness';
import { startWorker } from '../src/start-worker';

describe('worker start-up', () => {
  it('when WORKER_QUEUES names a source no provider serves, then the worker refuses to start and names it', async () => {
    const config = testConfig();
    // Only a source the type system never saw can get here: config validation and the registry's Record stop the rest.
    const sources: Source[] = ['linkedin', 'twitter' as Source];
    await expect(startWorker({ ...config, worker: { ...config.worker, sources } })).rejects.toThrow(
      'WORKER_QUEUES names twitter, which no provider serves',
    );
  });

  it('when WORKER_QUEUES names one source, then the worker runs that source only', async () => {
    const config = testConfig({ WORKER_QUEUES: 'shopify' });
    const worker = await startWorker(config);
    try {
      expect(worker.sources).toEqual(['shopify']);
      expect(await worker.readiness()).toMatchObject({ ready: true, checks: { consumers: 'ok' } });
    } finally {
      await worker.close();
    }
  });
});
