// A strict consumer of the client openapi-typescript (its defaults) and openapi-fetch make from the
// served document: copied beside the generated `schema.d.ts` by generated-clients.test.ts, type-checked
// with tsc --strict and run against an API process. No cast anywhere: if the document types an answer
// wrongly, this does not compile. Prints `{ operationId: status }` for every operation.
import createClient from 'openapi-fetch';
import type { operations, paths } from './schema.js';

const base = process.env.LEADGEN_BASE_URL ?? '';
const client = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${process.env.LEADGEN_API_KEY ?? ''}` } });

interface Answer<T> {
  data?: T;
  response: Response;
}
const statuses: Record<string, number> = {};
/** The answer's data, recorded under the operation's id; throws when the call did not succeed. */
function ok<T>(operation: keyof operations, answer: Answer<T>): T {
  statuses[operation] = answer.response.status;
  if (answer.data === undefined) throw new Error(`${operation}: ${answer.response.status}`);
  return answer.data;
}
/** A call whose documented answer is an error (a 404, a 409): only its status is recorded. */
function status(operation: keyof operations, answer: { response: Response }): void {
  statuses[operation] = answer.response.status;
}

const started = ok(
  'generateLeads',
  await client.POST('/api/v1/leads/generate', {
    params: { header: { 'Idempotency-Key': `consumer-${Date.now()}`, Prefer: 'wait=30' } },
    body: { category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 },
  }),
);
const jobId = started.jobId;
const job = ok('getJob', await client.GET('/api/v1/leads/jobs/{jobId}', { params: { path: { jobId } } }));
// The union narrows on `status`: the terminal branch has `terminal` and `leads`, the open one neither.
const delivered: number = job.status === 'COMPLETE' ? job.terminal.deliveredCount + job.leads.length * 0 : -1;
if (job.status === 'queued' || job.status === 'running') {
  // @ts-expect-error a job still under way has no `terminal`
  console.error(job.terminal);
}
const request: { source: string; maxResults: number } = job.request;
const jobs = ok('listJobs', await client.GET('/api/v1/leads/jobs', { params: { query: { status: ['COMPLETE', 'PARTIAL'], limit: 5 } } }));
const firstListed: string | undefined = jobs.items[0]?.jobId;
status('cancelJob', await client.DELETE('/api/v1/leads/jobs/{jobId}', { params: { path: { jobId } } }));

const page = ok('getJobLeads', await client.GET('/api/v1/leads/jobs/{jobId}/leads', { params: { path: { jobId }, query: { limit: 2 } } }));
const firstLead: string | undefined = page.items[0]?.lead.businessName;
const csv: string = ok('getJobLeadsCsv', await client.GET('/api/v1/leads/jobs/{jobId}/leads.csv', { params: { path: { jobId } }, parseAs: 'text' }));
const jsonl: string = ok('getJobLeadsJsonl', await client.GET('/api/v1/leads/jobs/{jobId}/leads.jsonl', { params: { path: { jobId } }, parseAs: 'text' }));
const resultSetId = page.resultSetId;
const set = ok('getResultSet', await client.GET('/api/v1/leads/result-sets/{resultSetId}', { params: { path: { resultSetId } } }));
const setComplete: boolean = set.complete;
ok('getResultSetCsv', await client.GET('/api/v1/leads/result-sets/{resultSetId}.csv', { params: { path: { resultSetId } }, parseAs: 'text' }));
ok('getResultSetJsonl', await client.GET('/api/v1/leads/result-sets/{resultSetId}.jsonl', { params: { path: { resultSetId } }, parseAs: 'text' }));
const leads = ok('listLeads', await client.GET('/api/v1/leads', { params: { query: { jobId, source: 'google_maps' } } }));
const allCsv: string = ok('listLeadsCsv', await client.GET('/api/v1/leads.csv', { params: { query: { jobId } }, parseAs: 'text' }));
ok('listLeadsJsonl', await client.GET('/api/v1/leads.jsonl', { params: { query: { jobId } }, parseAs: 'text' }));

const account = ok('getAccount', await client.GET('/api/v1/account'));
const available: number = account.credits.available;
ok('addSuppressions', await client.PUT('/api/v1/suppressions', { body: { domains: ['example.com'], emails: ['a@example.com'] } }));
const suppressions = ok('listSuppressions', await client.GET('/api/v1/suppressions', { params: { query: { kind: 'domain' } } }));
const domains: number = suppressions.counts.domain;
ok('removeSuppressions', await client.DELETE('/api/v1/suppressions', { body: { domains: ['example.com'] } }));
const audit = ok('listAuditEvents', await client.GET('/api/v1/audit-events', { params: { query: { action: 'suppressions.changed', limit: 10 } } }));
const audited: string[] = audit.items.map((event) => event.action);
const ledger = ok('listAccountLedger', await client.GET('/api/v1/account/ledger', { params: { query: { limit: 5 } } }));
const firstKind: string | undefined = ledger.items[0]?.kind;
const ledgerCsv: string = ok('exportAccountLedgerCsv', await client.GET('/api/v1/account/ledger.csv', { parseAs: 'text' }));
const usage = ok('getAccountUsage', await client.GET('/api/v1/account/usage', { params: { query: { from: '2026-01-01' } } }));
const charged: number = usage.totals.creditsCharged;
// A key made, named, listed, read and revoked: its secret only in the creation's answer.
const made = ok('createApiKey', await client.POST('/api/v1/keys', { body: { name: 'consumer', scopes: ['read'] } }));
const keySecret: string = made.apiKey;
ok('changeApiKey', await client.PATCH('/api/v1/keys/{keyId}', { params: { path: { keyId: made.keyId } }, body: { name: 'consumer, renamed' } }));
const keys = ok('listApiKeys', await client.GET('/api/v1/keys', { params: { query: { mode: 'live' } } }));
const keyScopes: string[] = keys.items[0]?.scopes ?? [];
ok('getApiKey', await client.GET('/api/v1/keys/{keyId}', { params: { path: { keyId: made.keyId } } }));
const revokedAt: string | null = ok('revokeApiKey', await client.DELETE('/api/v1/keys/{keyId}', { params: { path: { keyId: made.keyId } } })).revokedAt;

const countries = ok('getLinkedinCountries', await client.GET('/api/v1/meta/linkedin-countries'));
const tariffs = ok('getTariffs', await client.GET('/api/v1/meta/tariffs'));
const perItem: number = tariffs.tariffs.linkedin.perItem;
const shopify = ok('getShopifyCategories', await client.GET('/api/v1/meta/shopify-categories'));
if (!shopify.categories.some((category) => category.path === '/Home & Garden' && typeof category.confirmed === 'boolean')) {
  throw new Error('getShopifyCategories: no /Home & Garden');
}
// An objection (no key needed): a domain waits for its token, which the check does not find yet (409).
const objection = ok('requestObjection', await client.POST('/api/v1/privacy/objections', { body: { domain: 'consumer-objection.example' } }));
const objectionId: string = objection.kind === 'domain' ? objection.objectionId : '';
status('verifyObjection', await client.POST('/api/v1/privacy/objections/{id}/verify', { params: { path: { id: objectionId } } }));
const notices = ok('listObjectionNotices', await client.GET('/api/v1/privacy/objections', { params: { query: { limit: 10 } } }));
const noticed: string[] = notices.items.flatMap((notice) => notice.identifiers.emails);
const health = ok('health', await client.GET('/healthz'));
const ready = ok('ready', await client.GET('/readyz'));
const document = ok('getOpenApi', await client.GET('/api/v1/openapi.json'));
const version: string = document.openapi;

const created = ok('createWebhookEndpoint', await client.POST('/api/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hooks', events: ['job.completed'] } }));
const id = created.id;
const secret: string = created.secret;
ok('listWebhookEndpoints', await client.GET('/api/v1/webhooks'));
ok('getWebhookEndpoint', await client.GET('/api/v1/webhooks/{id}', { params: { path: { id } } }));
ok('updateWebhookEndpoint', await client.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { description: 'consumer' } }));
ok('rotateWebhookSecret', await client.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id } } }));
const ping = ok('pingWebhookEndpoint', await client.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } }));
const deliveries = ok('listWebhookDeliveries', await client.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { status: 'pending' } } }));
const attempts: number = deliveries.items.reduce((sum, delivery) => sum + delivery.attempts.length, 0);
status('retryWebhookDelivery', await client.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id, deliveryId: ping.id } } }));
ok('listJobWebhookDeliveries', await client.GET('/api/v1/leads/jobs/{jobId}/webhook-deliveries', { params: { path: { jobId } } }));
status('retryJobWebhookDelivery', await client.POST('/api/v1/leads/jobs/{jobId}/webhook-deliveries/{deliveryId}/retry', { params: { path: { jobId, deliveryId: 'msg_unknown' } } }));
const batch = ok(
  'createBatch',
  await client.POST('/api/v1/leads/batches', {
    params: { header: { 'Idempotency-Key': `consumer-batch-${Date.now()}` } },
    body: { name: 'consumer', maxCredits: 100, requests: [{ category: 'dentist', state: 'US', maxResults: 2 }] },
  }),
);
const batchId: string = batch.batchId;
const quote = ok(
  'createQuote',
  await client.POST('/api/v1/leads/quotes', {
    body: { area: { bbox: { south: 30.26, west: -97.75, north: 30.27, east: -97.74 } }, request: { category: 'dentist', state: 'US' } },
  }),
);
const quotedPlaces: number = quote.places;
const batchCounts: number = batch.counts.queued + batch.counts.running;
// A consumer reads a batch's leads once it has ended (readable while it runs, but then maybe none yet: an empty
// JSON Lines body, which a generated client reads as no data).
let batchNow = ok('getBatch', await client.GET('/api/v1/leads/batches/{batchId}', { params: { path: { batchId } } }));
for (let i = 0; i < 300 && batchNow.status === 'running'; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  batchNow = ok('getBatch', await client.GET('/api/v1/leads/batches/{batchId}', { params: { path: { batchId } } }));
}
ok('listBatches', await client.GET('/api/v1/leads/batches', { params: { query: { status: ['running', 'COMPLETE'], limit: 5 } } }));
ok('listBatchJobs', await client.GET('/api/v1/leads/batches/{batchId}/jobs', { params: { path: { batchId } } }));
ok('getBatchLeads', await client.GET('/api/v1/leads/batches/{batchId}/leads', { params: { path: { batchId }, query: { limit: 2 } } }));
ok('getBatchLeadsCsv', await client.GET('/api/v1/leads/batches/{batchId}/leads.csv', { params: { path: { batchId } }, parseAs: 'text' }));
ok('getBatchLeadsJsonl', await client.GET('/api/v1/leads/batches/{batchId}/leads.jsonl', { params: { path: { batchId } }, parseAs: 'text' }));
status('cancelBatch', await client.DELETE('/api/v1/leads/batches/{batchId}', { params: { path: { batchId } } }));
status('revealDefaultWebhookSecret', await client.POST('/api/v1/webhooks/default-secret'));
ok('rotateDefaultWebhookSecret', await client.POST('/api/v1/webhooks/default-secret/rotate'));
status('deleteWebhookEndpoint', await client.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }));
const monitor = ok(
  'createMonitor',
  await client.POST('/api/v1/monitors', {
    body: { name: 'consumer', request: { category: 'dentist', state: 'US', maxResults: 5 }, schedule: { cron: '0 7 * * 1', timezone: 'Europe/Berlin' } },
  }),
);
const monitorId = monitor.monitorId;
const nextRunAt: string | null = monitor.nextRunAt;
ok('listMonitors', await client.GET('/api/v1/monitors'));
ok('getMonitor', await client.GET('/api/v1/monitors/{id}', { params: { path: { id: monitorId } } }));
ok('updateMonitor', await client.PATCH('/api/v1/monitors/{id}', { params: { path: { id: monitorId } }, body: { schedule: { every: 'PT6H' } } }));
const run = ok('runMonitor', await client.POST('/api/v1/monitors/{id}/run', { params: { path: { id: monitorId }, header: { 'Idempotency-Key': `consumer-run-${Date.now()}` } } }));
const runs = ok('listMonitorRuns', await client.GET('/api/v1/monitors/{id}/runs', { params: { path: { id: monitorId }, query: { limit: 5 } } }));
status('deleteMonitor', await client.DELETE('/api/v1/monitors/{id}', { params: { path: { id: monitorId } } }));

console.log(
  JSON.stringify({
    statuses,
    seen: {
      delivered,
      request: request.source,
      listed: firstListed === jobId,
      batchCounts: batchCounts >= 0,
      quotedPlaces: quotedPlaces > 0,
      firstLead: typeof firstLead,
      csvLines: csv.trimEnd().split('\r\n').length,
      jsonlLines: jsonl.trimEnd().split('\n').length,
      setComplete,
      leads: leads.items.length,
      allCsvLines: allCsv.trimEnd().split('\r\n').length,
      available: available >= 0,
      domains,
      noticed: noticed.length,
      audited,
      countries: countries.countries.length > 0,
      perItem: perItem > 0,
      health: health.status,
      ready: ready.status,
      version,
      secret: secret.startsWith('whsec_'),
      attempts: attempts >= 0,
      monitorRun: run.monitorId === monitorId && runs.items.length === 1 && nextRunAt !== null,
      ledger: firstKind === 'grant' && ledgerCsv.startsWith('"id"') && charged >= 0,
      key: keySecret.startsWith('lg_live_') && keyScopes.length > 0 && revokedAt !== null,
    },
  }),
);
