import type {
  AreaBatchRequest,
  BatchBody,
  BatchJobPage,
  BatchLeadPage,
  BatchPage,
  BatchRequest,
  BatchStatus,
  JobSummary,
  Quote,
  QuoteRequest,
} from './api-bodies.js';
import { sendJson, sleep, type HttpOptions, type RequestOptions } from './http.js';
import { DEFAULT_MAX_WAIT_MS } from './jobs-api.js';
import type { LeadsApi } from './leads-api.js';
import { LeadgenTimeoutError } from './problem-error.js';
import { items, newKey, pages, query, seg } from './query-string.js';
import type { WithMeta } from './response-meta.js';

const API = '/api/v1';
const isTerminal = (batch: BatchBody): boolean => batch.status !== 'running';

export interface CreateBatchOptions extends RequestOptions {
  /** false (default): resolve with the 202's running batch; true: poll until it is terminal */
  wait?: boolean;
  /** made for you (and reused across this call's retries) unless given */
  idempotencyKey?: string;
  /** how long to wait for the terminal batch in all, polls included (default 10 minutes); then LeadgenTimeoutError `wait` */
  maxWaitMs?: number;
}

export interface BatchFilter {
  status?: BatchStatus[];
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** batches per page, 1..100 */
  limit?: number;
}

/** Batches: up to 1,000 generation requests at once, deduplicated and capped; follow, cancel, list, read their leads. */
export class BatchesApi {
  constructor(
    private readonly http: HttpOptions,
    private readonly leadsApi: LeadsApi,
  ) {}

  /**
   * Starts a batch (202 at once). With `wait` it resolves with the terminal batch, polling after each
   * Retry-After for at most `maxWaitMs`. One Idempotency-Key for the call and all its retries.
   */
  async create(batch: BatchRequest | AreaBatchRequest, options: CreateBatchOptions = {}): Promise<WithMeta<BatchBody>> {
    const started = Date.now();
    const body = await sendJson<BatchBody>(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/leads/batches`,
      headers: { 'Idempotency-Key': options.idempotencyKey ?? newKey() },
      body: batch,
    });
    if (!options.wait || isTerminal(body)) return body;
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    return this.waitFor(body.batchId, {
      ...options,
      maxWaitMs: maxWaitMs - (Date.now() - started),
      firstDelayMs: body.meta.retryAfterMs ?? 1000,
    });
  }

  /**
   * Quotes an area search (POST /leads/quotes): the places inside the area, the tiles, the paid calls and the
   * credits a run from it makes. Costs nothing; `create({ quoteId })` runs it within 24 hours.
   */
  quote(body: QuoteRequest, options: RequestOptions = {}): Promise<WithMeta<Quote>> {
    return sendJson<Quote>(this.http, { ...options, method: 'POST', path: `${API}/leads/quotes`, body });
  }

  /** Polls the batch after each Retry-After until it is terminal, for at most `maxWaitMs` (default 10 minutes). */
  async waitFor(
    batchId: string,
    options: RequestOptions & { maxWaitMs?: number; firstDelayMs?: number } = {},
  ): Promise<WithMeta<BatchBody>> {
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    const deadline = Date.now() + maxWaitMs;
    let delay = options.firstDelayMs ?? 0;
    for (;;) {
      if (Date.now() + delay > deadline) throw new LeadgenTimeoutError('wait', maxWaitMs, batchId);
      await sleep(delay, options.signal);
      const batch = await this.get(batchId, options);
      if (isTerminal(batch)) return batch;
      delay = batch.meta.retryAfterMs ?? 5000;
    }
  }

  /** The batch body: counts of its children by status, what it delivered and charged; `terminal` once every child is. */
  get(batchId: string, options: RequestOptions = {}): Promise<WithMeta<BatchBody>> {
    return sendJson<BatchBody>(this.http, { ...options, method: 'GET', path: `${API}/leads/batches/${seg(batchId)}` });
  }

  /** Cancels every open child; resolves with the CANCELLED batch (a LeadgenError batch_not_cancellable if it ended otherwise). */
  cancel(batchId: string, options: RequestOptions = {}): Promise<WithMeta<BatchBody>> {
    return sendJson<BatchBody>(this.http, { ...options, method: 'DELETE', path: `${API}/leads/batches/${seg(batchId)}` });
  }

  /** One page of the account's batches, newest first. */
  page(filter: BatchFilter & { cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<BatchPage>> {
    return sendJson<BatchPage>(this.http, { ...options, method: 'GET', path: `${API}/leads/batches${query({ ...filter })}` });
  }

  /** Every page: `for await (const page of client.batches.pages())`. */
  pages(filter: BatchFilter = {}, options: RequestOptions = {}): AsyncGenerator<WithMeta<BatchPage>> {
    return pages((cursor) => this.page({ ...filter, cursor }, options));
  }

  /** Every batch, newest first: `for await (const batch of client.batches.list())`. */
  list(filter: BatchFilter = {}, options: RequestOptions = {}): AsyncGenerator<BatchBody> {
    return items(this.pages(filter, options));
  }

  /** One page of the batch's children (jobs), in request order. */
  jobsPage(
    batchId: string,
    paging: { cursor?: string; limit?: number } = {},
    options: RequestOptions = {},
  ): Promise<WithMeta<BatchJobPage>> {
    return sendJson<BatchJobPage>(this.http, {
      ...options,
      method: 'GET',
      path: `${API}/leads/batches/${seg(batchId)}/jobs${query(paging)}`,
    });
  }

  /** Every child of the batch, in request order. */
  jobs(batchId: string, options: RequestOptions & { limit?: number } = {}): AsyncGenerator<JobSummary> {
    return items(pages((cursor) => this.jobsPage(batchId, { cursor, limit: options.limit }, options)));
  }

  /** One JSON page of the batch's leads (a running batch's so far: `complete` false). */
  leads(batchId: string, paging: { cursor?: string; limit?: number } = {}, options: RequestOptions = {}): Promise<WithMeta<BatchLeadPage>> {
    return sendJson<BatchLeadPage>(this.http, {
      ...options,
      method: 'GET',
      path: `${API}/leads/batches/${seg(batchId)}/leads${query(paging)}`,
    });
  }

  /** Every lead of the batch streamed as JSON Lines, one by one (same as `leads.stream({ ofBatch })`). */
  streamLeads(batchId: string, options: RequestOptions = {}) {
    return this.leadsApi.stream({ ofBatch: batchId }, options);
  }

  /** The batch's leads as CSV bytes (same as `leads.csv({ ofBatch })`). */
  csv(batchId: string, options: RequestOptions = {}) {
    return this.leadsApi.csv({ ofBatch: batchId }, options);
  }
}
