import { BATCH_STATUSES, TERMINAL_STATUSES } from '@leadgen/domain';
import { d, int, nullable, object, ref, str, time } from './openapi-schemas';

// Batches (docs/api.md#batches, decision 021): the batch body (the paths are declared in
// routes/leads/batches-endpoints.ts; BatchRequest is derived from its Joi schema in batches-schema.ts).

const count = (description: string) => d(description, int());

export const batchSchemas = {
  Batch: object(
    {
      batchId: d('The batch id (`bat_…`)', str),
      name: d('Its label', nullable(str)),
      pollUrl: d('Where to poll the batch (also `Location` of its creation)', str),
      status: d('running until every child is terminal, then its terminal status (docs/api.md#batches)', {
        type: 'string',
        enum: [...BATCH_STATUSES],
      }),
      childCount: count('How many children (one job per request)'),
      counts: d(
        'The children by status; they add up to childCount',
        object({
          queued: count('Not started yet'),
          running: count('Running now'),
          COMPLETE: count('Ended COMPLETE'),
          PARTIAL: count('Ended PARTIAL'),
          EMPTY: count('Ended EMPTY'),
          FAILED: count('Ended FAILED'),
          CANCELLED: count('Ended CANCELLED (by the owner, or stop reason batch_budget_exhausted)'),
        }),
      ),
      requestedCount: count("The sum of the children's maxResults"),
      deliveredCount: count('Leads delivered by the settled children, each at most once per batch'),
      creditsReserved: count('Held by the children running now; 0 once terminal'),
      creditsCharged: count('Charged for the settled children'),
      maxCredits: d('The cap the batch never charges past, or null (the account balance is the limit)', nullable(int(1))),
      excludeDelivered: d('Whether every child skips leads the account already had', { type: 'boolean' }),
      webhookUrl: d("Where the batch's terminal event goes, or null", nullable(str)),
      createdAt: d('When the batch was created', time),
      finishedAt: d('When its last child settled', nullable(time)),
      monitorId: d('The monitor whose run this batch is (a batch monitor, decision 022); absent for a batch asked for directly', str),
      areaSearch: d('An area search’s area, tiles and quote (decision 039); absent for a batch of requests', ref('BatchArea')),
      terminal: d(
        'The outcome; present exactly when the status is terminal',
        object({
          status: d('The terminal status', { type: 'string', enum: [...TERMINAL_STATUSES] }),
          childCount: count('Children'),
          deliveredCount: count('Leads delivered'),
          creditsCharged: count('Credits charged'),
        }),
      ),
    },
    [
      'batchId',
      'name',
      'pollUrl',
      'status',
      'childCount',
      'counts',
      'requestedCount',
      'deliveredCount',
      'creditsReserved',
      'creditsCharged',
      'maxCredits',
      'excludeDelivered',
      'webhookUrl',
      'createdAt',
      'finishedAt',
    ],
    { description: "A batch body: its counters are kept by its children's settlements; `terminal` once every child is terminal" },
  ),
};
