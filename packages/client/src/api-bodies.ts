import type { components, operations } from './openapi-types.js';

// The API's bodies by name, every one taken from the types generated from the OpenAPI document
// (openapi-types.ts), so the client states no shape of its own and needs nothing else to compile.
type Schemas = components['schemas'];

/** What `generate` sends: defaults (`source`, `maxResults`) may be left out. */
export type GenerationRequest = Schemas['GenerationRequestInput'];
/** The normalised request a job reports (`job.request`): defaults filled in. */
export type NormalisedGenerationRequest = Schemas['GenerationRequest'];
/** A job as GET answers it: `terminal` and `leads` exactly when the status is terminal. */
export type JobBody = Schemas['Job'];
/** A job that has ended (COMPLETE, PARTIAL, EMPTY, FAILED, CANCELLED), with its `terminal` object and `leads`. */
export type TerminalJob = Extract<JobBody, { terminal: object }>;
/** A job of a listing: the job body without `leads`. */
export type JobSummary = Schemas['JobSummary'];
/** The 202 body of a generate call still under way. */
export type AcceptedBody = Schemas['Accepted'];
export type Lead = Schemas['Lead'];
/** A delivered lead and where it belongs (lead listings and JSON Lines exports). */
export type LeadItem = Schemas['LeadItem'];
/** A page of `GET /api/v1/leads/jobs`; `nextCursor` is null on the last page. */
export type JobPage = operations['listJobs']['responses'][200]['content']['application/json'];
/** One entry of the account's audit trail (`GET /api/v1/audit-events`). */
export type AuditEvent = Schemas['AuditEvent'];
/** A page of `GET /api/v1/audit-events`; `nextCursor` is null on the last page. */
export type AuditEventPage = Schemas['AuditEventPage'];
export type JobStatus = JobBody['status'];
export type Source = JobBody['source'];
/** RFC 9457 Problem Details as the API sends them; `code` is stable (docs/errors.md). */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
/** A page of `GET /api/v1/leads` (the account's leads). */
export type LeadPage = operations['listLeads']['responses'][200]['content']['application/json'];
/** A page of a job's or a result set's leads; `complete` is false while the job runs. */
export type ResultSetPage = operations['getJobLeads']['responses'][200]['content']['application/json'];
export type Account = operations['getAccount']['responses'][200]['content']['application/json'];
export type SuppressionPage = operations['listSuppressions']['responses'][200]['content']['application/json'];
/** What PUT and DELETE /api/v1/suppressions take: domains, emails and phones. */
export type SuppressionLists = NonNullable<operations['addSuppressions']['requestBody']>['content']['application/json'];
export type SuppressionsAdded = operations['addSuppressions']['responses'][200]['content']['application/json'];
export type SuppressionsRemoved = operations['removeSuppressions']['responses'][200]['content']['application/json'];
export type LinkedinCountries = operations['getLinkedinCountries']['responses'][200]['content']['application/json'];
export type ShopifyCategories = operations['getShopifyCategories']['responses'][200]['content']['application/json'];
export type Tariffs = operations['getTariffs']['responses'][200]['content']['application/json'];
export type Readiness = operations['ready']['responses'][200]['content']['application/json'];
export type OpenApiDocument = operations['getOpenApi']['responses'][200]['content']['application/json'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookSecret = Schemas['WebhookSecret'];
export type NewWebhookEndpoint = NonNullable<operations['createWebhookEndpoint']['requestBody']>['content']['application/json'];
export type WebhookEndpointChange = NonNullable<operations['updateWebhookEndpoint']['requestBody']>['content']['application/json'];
export type WebhookDeliveryPage = operations['listWebhookDeliveries']['responses'][200]['content']['application/json'];
/** What a verified webhook delivery carries: a job event, a ping, or a person's objection (`subject.objected`). */
export type WebhookEvent =
  | NonNullable<operations['event_subject_objected']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_job_completed']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_ping']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_job_failed']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_job_partial']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_job_empty']['requestBody']>['content']['application/json']
  | NonNullable<operations['event_job_cancelled']['requestBody']>['content']['application/json'];
/**
 * A monitor (decision 022): a generation request (`request`) or a batch of them (`batch`) run on a schedule,
 * each run delivering only what is new.
 */
export type Monitor = Schemas['Monitor'];
/** Exactly one of `request` and `batch: { requests }`. */
export type NewMonitor = Schemas['MonitorInput'];
export type MonitorChange = Schemas['MonitorUpdate'];
/** A batch monitor's requests: each run submits them as one batch. */
export type MonitorBatch = Schemas['MonitorBatchInput'];
/** A tick of a monitor's schedule or a run asked for, with its job's (or batch's) counts. */
export type MonitorRun = Schemas['MonitorRun'];
/** What `monitors.run` answers: the run's job, or a batch monitor's batch (tell them apart by `batchId`). */
export type MonitorRunStarted = Schemas['JobSummary'] | Schemas['Batch'];
export type MonitorRunPage = Schemas['MonitorRunPage'];
/** What `batches.create` sends: 1..1,000 generation requests and the batch's own options. */
export type BatchRequest = Schemas['BatchRequest'];
/** an area search (decision 039): area and request, or a quote's id */
export type AreaBatchRequest = Schemas['AreaBatchRequest'];
export type QuoteRequest = Schemas['QuoteRequest'];
export type Quote = Schemas['Quote'];
/** A batch as GET answers it: `terminal` exactly when the status is not `running`. */
export type BatchBody = Schemas['Batch'];
export type BatchStatus = BatchBody['status'];
/** A page of `GET /api/v1/leads/batches`; `nextCursor` is null on the last page. */
export type BatchPage = operations['listBatches']['responses'][200]['content']['application/json'];
/** A page of a batch's children (`GET /api/v1/leads/batches/{batchId}/jobs`). */
export type BatchJobPage = operations['listBatchJobs']['responses'][200]['content']['application/json'];
/** A page of a batch's leads; `complete` is false while the batch runs. */
export type BatchLeadPage = operations['getBatchLeads']['responses'][200]['content']['application/json'];
/** What `privacy.object` sends: exactly one of email, domain, phone. */
export type ObjectionRequest = Schemas['ObjectionRequest'];
/** The 202 of an objection: pending proof (the same whether or not the service holds the subject). */
export type ObjectionPending = Schemas['ObjectionPending'];
/** A domain objection whose token was found. */
export type ObjectionConfirmed = Schemas['ObjectionConfirmed'];
/** A person the account received who objected (the data of `subject.objected`). */
export type ObjectionNotice = Schemas['ObjectionNotice'];
/** A page of `GET /api/v1/privacy/objections`; `nextCursor` is null on the last page. */
export type ObjectionNoticePage = Schemas['ObjectionNoticePage'];
/** A page of `GET /api/v1/account/ledger`, oldest row first; `nextCursor` is null on the last page. */
export type LedgerPage = operations['listAccountLedger']['responses'][200]['content']['application/json'];
/** Charges per UTC day and source (`GET /api/v1/account/usage`). */
export type Usage = operations['getAccountUsage']['responses'][200]['content']['application/json'];
/** An API key as the keys endpoints show it, never with its secret. */
export type ApiKey = Schemas['ApiKey'];
/** A key just made: `apiKey` is its secret, shown in this answer only. */
export type ApiKeyWithSecret = Schemas['ApiKeyWithSecret'];
export type ApiKeyPage = Schemas['ApiKeyPage'];
/** What `POST /api/v1/keys` takes: name, scopes, mode, expiresAt, all optional. */
export type NewApiKey = NonNullable<operations['createApiKey']['requestBody']>['content']['application/json'];
/** What `PATCH /api/v1/keys/{keyId}` takes: name and/or expiresAt. */
export type ApiKeyChange = NonNullable<operations['changeApiKey']['requestBody']>['content']['application/json'];
