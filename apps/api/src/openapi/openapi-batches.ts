import { BATCH_STATUSES, MAX_BATCH_REQUESTS, TERMINAL_STATUSES } from '@leadgen/domain';
import { d, int, nullable, object, ref, str, time } from './openapi-schemas';

// Batches (docs/api.md#batches, decision 021): their schemas (the paths are declared in
// routes/leads/batches-endpoints.ts).

const count = (description: string) => d(description, int());

export const batchSchemas = {
  BatchRequest: object(
    {
      requests: d(`The generation requests, 1..${MAX_BATCH_REQUESTS}, each exactly as POST /api/v1/leads/generate takes one`, {
        type: 'array',
        minItems: 1,
        maxItems: MAX_BATCH_REQUESTS,
        items: ref('GenerationRequestInput'),
      }),
      excludeDelivered: d('Skip leads the account received in any earlier job, for every child (default false)', { type: 'boolean' }),
      maxCredits: d('The most the batch may charge; a child starts only while its worst case still fits', {
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
      }),
      webhookUrl: d("Where the batch's terminal event is POSTed, signed with the account's default webhook secret", {
        type: 'string',
        format: 'uri',
        maxLength: 2048,
      }),
      name: d('A label for the batch', { type: 'string', minLength: 1, maxLength: 200 }),
    },
    ['requests'],
    {
      description: 'A batch: up to 1,000 generation requests run as ordinary jobs, deduplicated across the batch',
      example: {
        name: 'Dentists, Texas',
        maxCredits: 2000,
        requests: [
          { category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
          { category: 'dentist', state: 'US', city: 'Round Rock', maxResults: 25 },
        ],
      },
    },
  ),
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
