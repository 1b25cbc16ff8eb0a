import { answerWithin } from './time-limit';

/**
 * What a process reports on GET /readyz. The API answers it on its public port and on the
 * operations port; a worker on its operations port only.
 */
export interface ReadinessReport {
  ready: boolean;
  /** `shutting_down` while the process drains: probes take it out of rotation before it exits */
  status: 'ready' | 'unavailable' | 'starting' | 'shutting_down';
  /** one word per dependency: `ok`, or what is wrong with it */
  checks: Record<string, string>;
  /** for the operator reading the probe: what is wrong and what to do about it */
  detail?: string;
}

/**
 * A dependency check: resolves to `ok` (or another state word with a detail), rejects when the
 * dependency does not answer. Each check gets its own time limit, so one slow store cannot hang a probe.
 */
export type ReadinessCheck = () => Promise<'ok' | { state: string; detail: string }>;

// A probe's own timeout is typically 1 to 5 s: answer before it gives up.
const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check at once and reports; never throws. */
export async function checkReadiness(
  checks: Record<string, ReadinessCheck>,
  state: { shuttingDown: boolean },
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.allSettled(names.map((name) => answerWithin(timeoutMs, checks[name]!(), name)));
  const report: Record<string, string> = {};
  const details: string[] = [];
  outcomes.forEach((outcome, i) => {
    const name = names[i]!;
    if (outcome.status === 'rejected') {
      // Not the error's message: /readyz is public on the API's port, and it would name hosts.
      report[name] = 'unavailable';
      details.push(`${name} does not answer`);
    } else if (outcome.value === 'ok') {
      report[name] = 'ok';
    } else {
      report[name] = outcome.value.state;
      details.push(outcome.value.detail);
    }
  });
  const healthy = Object.values(report).every((value) => value === 'ok');
  if (state.shuttingDown) details.unshift('shutting down: draining before exit');
  return {
    ready: healthy && !state.shuttingDown,
    status: state.shuttingDown ? 'shutting_down' : healthy ? 'ready' : 'unavailable',
    checks: report,
    ...(details.length > 0 ? { detail: details.join('; ') } : {}),
  };
}

/** What a process reports before its dependencies are wired up. */
export function startingReport(): ReadinessReport {
  return { ready: false, status: 'starting', checks: {}, detail: 'starting up' };
}
