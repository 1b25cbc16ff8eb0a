import type { AcceptedBody, AuditEventPage, GenerationRequest, JobBody, JobPage, LeadItem, TerminalJob } from './api-bodies.js';
import { AccountApi, MetaApi, SuppressionsApi, type AuditEventFilter } from './account-api.js';
import { PrivacyApi } from './privacy-api.js';
import { KeysApi } from './keys-api.js';
import { CLIENT_VERSION, type HttpOptions, type RequestOptions } from './http.js';
import { JobsApi, type GenerateOptions, type JobFilter } from './jobs-api.js';
import { LeadsApi, type LeadFilter } from './leads-api.js';
import { BatchesApi } from './batches-api.js';
import type { WithMeta } from './response-meta.js';
import { MonitorsApi } from './monitors-api.js';
import { WebhooksApi } from './webhooks-api.js';

export interface ClientOptions {
  /** where the API is, e.g. https://leads.example.com (no /api/v1) */
  baseUrl: string;
  apiKey: string;
  /** a fetch of your own (a proxy agent, a test double); the runtime's by default */
  fetch?: typeof fetch;
  /** retries of a 429, a 503 or a network failure (default 4) */
  maxRetries?: number;
  /** the first backoff when the answer gives no Retry-After (default 500 ms, doubled each time) */
  retryBaseMs?: number;
  /** how long one request may take (default 30 s; a download: until its headers); each call may set its own */
  timeoutMs?: number;
  /** prepended to the User-Agent, e.g. `my-crm-sync/2.1` */
  userAgent?: string;
}

/** What `generate` is given: the generation request as the API takes it (defaults may be left out). */
export type GenerateRequest = GenerationRequest;

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The leadgen API, typed: one property per area (`jobs`, `leads`, `account`, `keys`, `suppressions`,
 * `webhooks`, `monitors`, `meta`, `privacy`); every call takes an AbortSignal and a timeout, 429 and 503 are retried after
 * Retry-After, and every result and error carries the answer's `meta` (request id, rate limit, replayed).
 */
export class LeadgenClient {
  readonly jobs: JobsApi;
  readonly leads: LeadsApi;
  readonly batches: BatchesApi;
  readonly account: AccountApi;
  readonly keys: KeysApi;
  readonly suppressions: SuppressionsApi;
  readonly webhooks: WebhooksApi;
  readonly monitors: MonitorsApi;
  readonly meta: MetaApi;
  readonly privacy: PrivacyApi;

  constructor(options: ClientOptions) {
    const http: HttpOptions = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      maxRetries: options.maxRetries ?? 4,
      retryBaseMs: options.retryBaseMs ?? 500,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      userAgent: `${options.userAgent ? `${options.userAgent} ` : ''}leadgen-client/${CLIENT_VERSION}`,
    };
    this.jobs = new JobsApi(http);
    this.leads = new LeadsApi(http);
    this.batches = new BatchesApi(http, this.leads);
    this.account = new AccountApi(http);
    this.keys = new KeysApi(http);
    this.suppressions = new SuppressionsApi(http);
    this.webhooks = new WebhooksApi(http);
    this.monitors = new MonitorsApi(http);
    this.meta = new MetaApi(http);
    this.privacy = new PrivacyApi(http);
  }

  // The first release's methods, kept working: each is its area's method under another name (README, "Migrating").

  /** Same as `jobs.generate`. */
  generate(request: GenerateRequest, options: GenerateOptions & { wait: false }): Promise<WithMeta<TerminalJob | AcceptedBody>>;
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<WithMeta<TerminalJob>>;
  generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<WithMeta<TerminalJob | AcceptedBody>> {
    return this.jobs.generate(request, options);
  }

  /** Same as `jobs.get`. */
  getJob(jobId: string, options: RequestOptions = {}): Promise<WithMeta<JobBody>> {
    return this.jobs.get(jobId, options);
  }

  /** Same as `jobs.cancel`. */
  cancelJob(jobId: string, options: RequestOptions = {}): Promise<WithMeta<TerminalJob>> {
    return this.jobs.cancel(jobId, options);
  }

  /** Same as `jobs.pages` (pages; `jobs.list` yields the jobs themselves). */
  listJobs(filter: JobFilter = {}, options: RequestOptions = {}): AsyncGenerator<WithMeta<JobPage>> {
    return this.jobs.pages(filter, options);
  }

  /** Same as `leads.stream` (JSON Lines, one by one as they arrive). */
  exportLeads(filter: LeadFilter = {}, options: RequestOptions = {}): AsyncGenerator<LeadItem> {
    return this.leads.stream(filter, options);
  }

  /** Same as `account.auditEventPages` (pages; `account.auditEvents` yields the events themselves). */
  listAuditEvents(filter: AuditEventFilter = {}, options: RequestOptions = {}): AsyncGenerator<WithMeta<AuditEventPage>> {
    return this.account.auditEventPages(filter, options);
  }

  /** Same as `leads.csv(...).body`. */
  async exportLeadsCsv(filter: LeadFilter = {}, options: RequestOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return (await this.leads.csv(filter, options)).body;
  }
}
