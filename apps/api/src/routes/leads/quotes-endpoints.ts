import type { Endpoint } from '../../http/route-table';
import { limited, pick, ref } from '../../openapi/openapi-schemas';
import { quoteRequestSchema } from './area-schema';
import { createQuoteRoute } from './quotes-route';

// The quote of an area search (docs/api.md#area-searches, decision 039); the batch it turns into is
// POST /leads/batches with { quoteId } (batches-endpoints.ts).

// A polygon of 1,000 positions written out with their decimals: well under this.
const QUOTE_BODY_LIMIT_BYTES = 128 * 1024;

export const quoteEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/leads/quotes',
    auth: 'key',
    scope: 'generate',
    rateLimit: { policy: 'generate', weight: '1: a quote counts as one generate call (it lists the area upstream)' },
    body: { limitBytes: QUOTE_BODY_LIMIT_BYTES },
    request: { body: quoteRequestSchema },
    handler: createQuoteRoute,
    operation: {
      tags: ['batches'],
      operationId: 'createQuote',
      summary: 'Quote an area search before paying',
      description:
        'Tiles the area as a run would, listing each tile with the cheapest field mask (IDs only inside the area, ids and locations across its edge), and answers the places inside the area, the tiles, the paid calls and the credits a run from the quote makes. Stored for 24 hours: POST /leads/batches with `{ quoteId }` runs exactly its tiles. Costs the account nothing.',
      responses: {
        201: { description: 'The quote', headers: limited, content: { 'application/json': { schema: ref('Quote') } } },
        ...pick(422),
      },
    },
  },
];
