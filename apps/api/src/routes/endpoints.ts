import type { Endpoint } from '../http/route-table';
import { accountEndpoints } from './account-endpoints';
import { batchEndpoints } from './leads/batches-endpoints';
import { quoteEndpoints } from './leads/quotes-endpoints';
import { jobEndpoints } from './leads/jobs-endpoints';
import { keyEndpoints } from './keys/keys-endpoints';
import { ledgerEndpoints } from './ledger/ledger-endpoints';
import { leadListingEndpoints } from './leads/lead-listing-endpoints';
import { metaEndpoints } from './meta-endpoints';
import { monitorEndpoints } from './monitors/monitors-endpoints';
import { privacyEndpoints } from './privacy/privacy-endpoints';
import { webhookEndpoints } from './webhooks/webhooks-endpoints';

/**
 * Every endpoint of the service, each declared once (http/route-table.ts): createApp mounts them and the
 * OpenAPI document's paths are made from them. Order matters only where a literal path would otherwise be
 * taken by a parameter; each group declares those first.
 */
export const ENDPOINTS: readonly Endpoint[] = [
  ...jobEndpoints,
  ...batchEndpoints,
  ...quoteEndpoints,
  ...leadListingEndpoints,
  ...accountEndpoints,
  ...ledgerEndpoints,
  ...keyEndpoints,
  ...webhookEndpoints,
  ...monitorEndpoints,
  ...privacyEndpoints,
  ...metaEndpoints,
];
