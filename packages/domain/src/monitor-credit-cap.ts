import { reservationFor } from './billing';
import { errors } from './errors';
import type { GenerationRequest } from './generation-request';
import type { MonitorBatch } from './monitors';

// A monitor's credit rule, checked by the use cases on the monitor as it will be stored (not a shape: the
// route schema only says what a body looks like).

/** At most ten indexes, then how many more. */
const listed = (indexes: number[]) => indexes.slice(0, 10).join(', ') + (indexes.length > 10 ? ` and ${indexes.length - 10} more` : '');

/**
 * A run's worst case must fit the monitor's cap: checked on the monitor as it will be stored. For a batch
 * monitor, each request's (maxCreditsPerRun is the batch's maxCredits: children start while theirs fits, so a
 * request whose own worst case is above it could never run).
 */
export function checkMonitorCreditCap(monitor: {
  request: GenerationRequest | null;
  batch: MonitorBatch | null;
  maxCreditsPerRun: number | null;
}): void {
  if (monitor.maxCreditsPerRun === null) return;
  const requests = monitor.request ? [monitor.request] : (monitor.batch?.requests ?? []);
  const worst = requests.map((request, index) => ({ index, cost: reservationFor(request.source, request.maxResults) }));
  const over = worst.filter((w) => w.cost > monitor.maxCreditsPerRun!);
  if (over.length === 0) return;
  const highest = Math.max(...over.map((w) => w.cost));
  throw errors.validation([
    {
      pointer: '#/maxCreditsPerRun',
      detail: monitor.request
        ? `a run of this request reserves up to ${highest} credits (its worst case): raise maxCreditsPerRun or lower request.maxResults`
        : `batch.requests[${listed(over.map((w) => w.index))}] reserve up to ${highest} credits each (their worst case), more than a run may: raise maxCreditsPerRun or lower their maxResults`,
    },
  ]);
}
