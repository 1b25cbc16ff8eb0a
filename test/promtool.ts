import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/**
 * Runs Prometheus' `promtool` (Debian's `prometheus` package; `.ci/run` installs it). Without it a check cannot
 * run: it fails under CI, and says so elsewhere rather than passing.
 */
export function promtool(args: string[], input?: string): SpawnSyncReturns<string> {
  const result = spawnSync('promtool', args, { input, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool is not installed (apt-get install prometheus): ${result.error.message}`);
  return result;
}
