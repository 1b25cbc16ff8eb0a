import { probeRedis } from './queue-probe';

// Redis' error replies as its sources word them (src/cluster.c getNodeByQuery and src/script.c for a cluster
// node, src/server.c for a replica), for a probe that cannot use the Redis it reached.
const refused = (message: string) => probeRedis(() => Promise.reject(new Error(message)));

describe('probeRedis', () => {
  it('when the probe answers, then ok', async () => {
    expect(await probeRedis(() => Promise.resolve(0))).toBe('ok');
  });

  it('when a cluster node refuses it as a single node, either at the declared key or at a key the script reaches, then cluster_node', async () => {
    expect(await refused('MOVED 3999 127.0.0.1:7002')).toMatchObject({ state: 'cluster_node' });
    expect(await refused('ASK 3999 127.0.0.1:7002')).toMatchObject({ state: 'cluster_node' });
    expect(
      await refused(
        'ERR Script attempted to access a non local key in a cluster node script: 705dea099608a5bec7f0193936824b3ddfd33d79, on @user_script:17.',
      ),
    ).toMatchObject({ state: 'cluster_node', detail: expect.stringContaining('REDIS_CLUSTER_NODES') });
  });

  it('when a replica or a cluster without every slot refuses it, then that reason', async () => {
    expect(await refused("READONLY You can't write against a read only replica.")).toMatchObject({ state: 'read_only' });
    expect(await refused('CLUSTERDOWN The cluster is down')).toMatchObject({ state: 'cluster_down' });
  });

  it('when Redis does not answer at all, then the error goes on (readiness reports it as unavailable)', async () => {
    await expect(refused('Connection is closed.')).rejects.toThrow('Connection is closed.');
  });
});
