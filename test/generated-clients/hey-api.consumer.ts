// A strict consumer of the client @hey-api/openapi-ts (its defaults: types, SDK, fetch client) makes from
// the served document: copied beside the generated `hey/` by generated-clients.test.ts, type-checked with
// tsc --strict and run against an API process. No cast anywhere. Prints `{ operationId: status }`.
import { client } from './hey/client.gen.js';
import * as sdk from './hey/sdk.gen.js';

client.setConfig({ baseUrl: process.env.LEADGEN_BASE_URL ?? '', auth: () => process.env.LEADGEN_API_KEY ?? '' });

const statuses: Record<string, number> = {};
/** The answer's data, recorded under the SDK function's name (the operation id); throws unless it succeeded. */
function ok<T>(operation: keyof typeof sdk, answer: { data?: T; response?: Response }): T {
  statuses[operation] = answer.response?.status ?? 0;
  if (answer.data === undefined) throw new Error(`${operation}: ${answer.response?.status}`);
  return answer.data;
}
function status(operation: keyof typeof sdk, answer: { response?: Response }): void {
  statuses[operation] = answer.response?.status ?? 0;
}

const started = ok(
  'generateLeads',
  await sdk.generateLeads({ headers: { 'Idempotency-Key': `hey-${Date.now()}`, Prefer: 'wait=30' }, body: { category: 'dentist', state: 'US', maxResults: 3 } }),
);
const jobId = started.jobId;
const job = ok('getJob', await sdk.getJob({ path: { jobId } }));
const delivered: number = job.status === 'COMPLETE' ? job.terminal.deliveredCount + job.leads.length * 0 : -1;
const jobs = ok('listJobs', await sdk.listJobs({ query: { status: ['COMPLETE'], limit: 5 } }));
status('cancelJob', await sdk.cancelJob({ path: { jobId } }));
const page = ok('getJobLeads', await sdk.getJobLeads({ path: { jobId }, query: { limit: 2 } }));
const csv: string = ok('getJobLeadsCsv', await sdk.getJobLeadsCsv({ path: { jobId } }));
ok('getJobLeadsJsonl', await sdk.getJobLeadsJsonl({ path: { jobId } }));
const resultSetId = page.resultSetId;
ok('getResultSet', await sdk.getResultSet({ path: { resultSetId } }));
ok('getResultSetCsv', await sdk.getResultSetCsv({ path: { resultSetId } }));
ok('getResultSetJsonl', await sdk.getResultSetJsonl({ path: { resultSetId } }));
const leads = ok('listLeads', await sdk.listLeads({ query: { jobId } }));
ok('listLeadsCsv', await sdk.listLeadsCsv({ query: { jobId } }));
ok('listLeadsJsonl', await sdk.listLeadsJsonl({ query: { jobId } }));
const account = ok('getAccount', await sdk.getAccount());
ok('addSuppressions', await sdk.addSuppressions({ body: { phones: ['+15555550100'] } }));
ok('listSuppressions', await sdk.listSuppressions({ query: { kind: 'phone' } }));
ok('removeSuppressions', await sdk.removeSuppressions({ body: { phones: ['+15555550100'] } }));
const audit = ok('listAuditEvents', await sdk.listAuditEvents({ query: { action: 'suppressions.changed', limit: 10 } }));
ok('listAccountLedger', await sdk.listAccountLedger({ query: { limit: 5 } }));
ok('exportAccountLedgerCsv', await sdk.exportAccountLedgerCsv());
const usageCharged: number = ok('getAccountUsage', await sdk.getAccountUsage({ query: { from: '2026-01-01' } })).totals.creditsCharged;
const made = ok('createApiKey', await sdk.createApiKey({ body: { name: 'consumer', scopes: ['read'] } }));
const keySecret: string = made.apiKey;
ok('changeApiKey', await sdk.changeApiKey({ path: { keyId: made.keyId }, body: { name: 'consumer, renamed' } }));
ok('listApiKeys', await sdk.listApiKeys({ query: { mode: 'live' } }));
ok('getApiKey', await sdk.getApiKey({ path: { keyId: made.keyId } }));
const revokedAt: string | null = ok('revokeApiKey', await sdk.revokeApiKey({ path: { keyId: made.keyId } })).revokedAt;
ok('getLinkedinCountries', await sdk.getLinkedinCountries());
ok('getTariffs', await sdk.getTariffs());
const shopifyPaths: string[] = ok('getShopifyCategories', await sdk.getShopifyCategories()).categories.map((c) => c.path);
if (!shopifyPaths.includes('/Home & Garden')) throw new Error('getShopifyCategories: no /Home & Garden');
const objection = ok('requestObjection', await sdk.requestObjection({ body: { domain: 'consumer-objection.example' } }));
const objectionId: string = objection.kind === 'domain' ? objection.objectionId : '';
status('verifyObjection', await sdk.verifyObjection({ path: { id: objectionId } }));
const noticed: string[] = ok('listObjectionNotices', await sdk.listObjectionNotices({ query: { limit: 10 } })).items.flatMap((n) => n.identifiers.emails);
ok('health', await sdk.health());
ok('ready', await sdk.ready());
const document = ok('getOpenApi', await sdk.getOpenApi());
const created = ok('createWebhookEndpoint', await sdk.createWebhookEndpoint({ body: { url: 'http://127.0.0.1:9/hey', events: ['job.failed'] } }));
const id = created.id;
ok('listWebhookEndpoints', await sdk.listWebhookEndpoints());
ok('getWebhookEndpoint', await sdk.getWebhookEndpoint({ path: { id } }));
ok('updateWebhookEndpoint', await sdk.updateWebhookEndpoint({ path: { id }, body: { enabled: true } }));
ok('rotateWebhookSecret', await sdk.rotateWebhookSecret({ path: { id } }));
const ping = ok('pingWebhookEndpoint', await sdk.pingWebhookEndpoint({ path: { id } }));
ok('listWebhookDeliveries', await sdk.listWebhookDeliveries({ path: { id } }));
status('retryWebhookDelivery', await sdk.retryWebhookDelivery({ path: { id, deliveryId: ping.id } }));
const batch = ok(
  'createBatch',
  await sdk.createBatch({
    headers: { 'Idempotency-Key': `hey-batch-${Date.now()}` },
    body: { maxCredits: 100, requests: [{ category: 'dentist', state: 'US', maxResults: 2 }] },
  }),
);
const batchId: string = batch.batchId;
const quote = ok(
  'createQuote',
  await sdk.createQuote({
    body: { area: { bbox: { south: 30.26, west: -97.75, north: 30.27, east: -97.74 } }, request: { category: 'dentist', state: 'US' } },
  }),
);
const quotedPlaces: number = quote.places;
// A consumer reads a batch's leads once it has ended (readable while it runs, but then maybe none yet: an empty
// JSON Lines body, which a generated client reads as no data).
let batchNow = ok('getBatch', await sdk.getBatch({ path: { batchId } }));
for (let i = 0; i < 300 && batchNow.status === 'running'; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  batchNow = ok('getBatch', await sdk.getBatch({ path: { batchId } }));
}
ok('listBatches', await sdk.listBatches({ query: { limit: 5 } }));
ok('listBatchJobs', await sdk.listBatchJobs({ path: { batchId } }));
ok('getBatchLeads', await sdk.getBatchLeads({ path: { batchId } }));
ok('getBatchLeadsCsv', await sdk.getBatchLeadsCsv({ path: { batchId } }));
ok('getBatchLeadsJsonl', await sdk.getBatchLeadsJsonl({ path: { batchId } }));
status('cancelBatch', await sdk.cancelBatch({ path: { batchId } }));
ok('listJobWebhookDeliveries', await sdk.listJobWebhookDeliveries({ path: { jobId } }));
status('retryJobWebhookDelivery', await sdk.retryJobWebhookDelivery({ path: { jobId, deliveryId: 'msg_unknown' } }));
status('revealDefaultWebhookSecret', await sdk.revealDefaultWebhookSecret());
ok('rotateDefaultWebhookSecret', await sdk.rotateDefaultWebhookSecret());
status('deleteWebhookEndpoint', await sdk.deleteWebhookEndpoint({ path: { id } }));
const monitor = ok(
  'createMonitor',
  await sdk.createMonitor({ body: { name: 'hey', request: { category: 'dentist', state: 'US', maxResults: 3 }, schedule: { every: 'PT6H' } } }),
);
const monitorId = monitor.monitorId;
ok('listMonitors', await sdk.listMonitors());
ok('getMonitor', await sdk.getMonitor({ path: { id: monitorId } }));
ok('updateMonitor', await sdk.updateMonitor({ path: { id: monitorId }, body: { enabled: false } }));
ok('runMonitor', await sdk.runMonitor({ path: { id: monitorId }, headers: { 'Idempotency-Key': `hey-run-${Date.now()}` } }));
const runs = ok('listMonitorRuns', await sdk.listMonitorRuns({ path: { id: monitorId } }));
status('deleteMonitor', await sdk.deleteMonitor({ path: { id: monitorId } }));

console.log(
  JSON.stringify({
    statuses,
    seen: { delivered, listed: jobs.items.length, csvLines: csv.trimEnd().split('\r\n').length, leads: leads.items.length, available: account.credits.available >= 0, audited: audit.items.map((event) => event.action), version: document.openapi, runs: runs.items.length, noticed: noticed.length, usageCharged, key: keySecret.startsWith('lg_live_') && revokedAt !== null, quotedPlaces: quotedPlaces > 0 },
  }),
);
