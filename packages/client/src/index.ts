export { LeadgenClient, DEFAULT_TIMEOUT_MS, type ClientOptions, type GenerateRequest } from './client.js';
export { JobsApi, DEFAULT_MAX_WAIT_MS, type GenerateOptions, type JobFilter } from './jobs-api.js';
export { BatchesApi, type BatchFilter, type CreateBatchOptions } from './batches-api.js';
export { LeadsApi, type LeadFilter, type LeadSelection } from './leads-api.js';
export { AccountApi, MetaApi, SuppressionsApi, type AuditEventFilter, type LedgerFilter } from './account-api.js';
export { KeysApi, type KeyFilter } from './keys-api.js';
export { WebhooksApi } from './webhooks-api.js';
export { MonitorsApi } from './monitors-api.js';
export { PrivacyApi } from './privacy-api.js';
export { CLIENT_VERSION, type RequestOptions } from './http.js';
export { OPERATION_METHODS } from './operations.js';
export { LeadgenError, LeadgenTimeoutError, type ErrorProblem } from './problem-error.js';
export type { RateLimitInfo, ResponseMeta, WithMeta } from './response-meta.js';
export type * from './api-bodies.js';
/** Every path, operation and schema of the OpenAPI document, as openapi-typescript writes them (for openapi-fetch and the like). */
export type { components, operations, paths } from './openapi-types.js';
