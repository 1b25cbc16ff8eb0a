import { createDatabase, type Database } from '@leadgen/db';
import { reportReadReplica } from '@leadgen/ops';
import { replicaGauges } from './replica-gauges';

// The read replica's gauges (decision 047) on a real second connection: DATABASE_READ_URL naming a server that is no
// standby (the test database itself). What a real standby's lag reads, paused and resumed, is in the fault suite
// (test/faults/read-replica.faults.ts), against a streaming replica.
const TEST_DB = process.env.DATABASE_URL!;

describe('leadgen_read_replica_* gauges', () => {
  let db: Database;
  afterAll(async () => {
    await db?.$disconnect();
  });

  it('when a process has no read replica, then it exports no sample of them (a 0 would read "reads on the primary")', async () => {
    expect(await replicaGauges()).toEqual({});
  });

  it('when the read URL is no standby, then a scrape measures it: reads are not on the replica, the lag is unknown (absent) and the bound is said', async () => {
    db = createDatabase(TEST_DB, { poolSize: 1, readUrl: TEST_DB, readMaxLagMs: 2_500 });
    reportReadReplica(db.replica!);
    // No read was served: the scrape itself measured.
    expect(db.replica!.served).toEqual({ replica: 0, primary: 0, retriedOnPrimary: 0 });
    expect(await replicaGauges()).toEqual({ leadgen_read_replica_in_use: 0, leadgen_read_replica_max_lag_seconds: 2.5 });
    expect(db.replica!.lastVerdict.reason).toBe('DATABASE_READ_URL is no standby');
  });
});
