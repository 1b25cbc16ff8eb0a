import { metrics } from '@leadgen/ops';

/** leadgen_read_replica_* as a scrape reads them (the lag's collect measures first), by name; absent: no sample. */
export async function replicaGauges(): Promise<Record<string, number>> {
  const gauges = {
    leadgen_read_replica_lag_seconds: metrics.readReplicaLag,
    leadgen_read_replica_in_use: metrics.readReplicaInUse,
    leadgen_read_replica_max_lag_seconds: metrics.readReplicaMaxLag,
  };
  const read = async ([name, gauge]: [string, (typeof gauges)[keyof typeof gauges]]) =>
    (await gauge.get()).values.map((v) => [name, v.value] as const);
  return Object.fromEntries((await Promise.all(Object.entries(gauges).map(read))).flat());
}
