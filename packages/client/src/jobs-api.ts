import type {
  AcceptedBody,
  GenerationRequest,
  JobBody,
  JobPage,
  JobStatus,
  JobSummary,
  Source,
  TerminalJob,
  WebhookDelivery,
} from './api-bodies.js';
import { sendJson, sleep, type HttpOptions, type RequestOptions } from './http.js';
import { LeadgenTimeoutError } from './problem-error.js';
import { items, newKey, pages, query, seg } from './query-string.js';
import type { WithMeta } from './response-meta.js';

const API = '/api/v1';
const isTerminal = (body: JobBody | AcceptedBody): body is TerminalJob => 'terminal' in body;

export interface GenerateOptions extends RequestOptions {
  /** true (default): resolve with the terminal job, polling after a 202; false: answer at once (202 body or the job) */
  wait?: boolean;
  /** sent as `Prefer: wait=N` (0..60 s) when waiting; the server's default otherwise */
  serverWaitSeconds?: number;
  /** made for you (and reused across this call's retries) unless given */
  idempotencyKey?: string;
  /** how long to wait for the terminal job in all, polls included (default 10 minutes); then LeadgenTimeoutError `wait` */
  maxWaitMs?: number;
}

export interface JobFilter {
  status?: JobStatus[];
  source?: Source;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** jobs per page, 1..100 */
  limit?: number;
}

export const DEFAULT_MAX_WAIT_MS = 10 * 60_000;

/** Jobs: start one, follow it, cancel it, list them. */
export class JobsApi {
  constructor(private readonly http: HttpOptions) {}

  /**
   * Starts a job. With `wait` (the default) it resolves with the terminal job: a 202 is followed by
   * polling its Location after each Retry-After, for at most `maxWaitMs`. One Idempotency-Key for the
   * call and all its retries, so a retried or repeated call never makes a second job.
   */
  async generate(request: GenerationRequest, options: GenerateOptions & { wait: false }): Promise<WithMeta<TerminalJob | AcceptedBody>>;
  async generate(request: GenerationRequest, options?: GenerateOptions): Promise<WithMeta<TerminalJob>>;
  async generate(request: GenerationRequest, options: GenerateOptions = {}): Promise<WithMeta<TerminalJob | AcceptedBody>> {
    const started = Date.now();
    const wait = options.wait ?? true;
    const prefer = !wait ? 'respond-async' : options.serverWaitSeconds !== undefined ? `wait=${options.serverWaitSeconds}` : undefined;
    const body = await sendJson<TerminalJob | AcceptedBody>(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/leads/generate`,
      headers: { 'Idempotency-Key': options.idempotencyKey ?? newKey(), ...(prefer ? { Prefer: prefer } : {}) },
      body: request,
    });
    if (!wait || isTerminal(body)) return body;
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    return this.waitFor(body.jobId, {
      ...options,
      maxWaitMs: maxWaitMs - (Date.now() - started),
      firstDelayMs: body.meta.retryAfterMs ?? 1000,
    });
  }

  /** Polls the job after each Retry-After until it is terminal, for at most `maxWaitMs` (default 10 minutes). */
  async waitFor(
    jobId: string,
    options: RequestOptions & { maxWaitMs?: number; firstDelayMs?: number } = {},
  ): Promise<WithMeta<TerminalJob>> {
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    const deadline = Date.now() + maxWaitMs;
    let delay = options.firstDelayMs ?? 0;
    for (;;) {
      if (Date.now() + delay > deadline) throw new LeadgenTimeoutError('wait', maxWaitMs, jobId);
      await sleep(delay, options.signal);
      const job = await this.get(jobId, options);
      if (isTerminal(job)) return job;
      delay = job.meta.retryAfterMs ?? 1000;
    }
  }

  /** The job body: `terminal` and `leads` exactly when `status` is terminal (narrow on `status`). */
  get(jobId: string, options: RequestOptions = {}): Promise<WithMeta<JobBody>> {
    return sendJson<JobBody>(this.http, { ...options, method: 'GET', path: `${API}/leads/jobs/${seg(jobId)}` });
  }

  /** Cancels a queued or running job; resolves with the CANCELLED job (a LeadgenError job_not_cancellable if it ended otherwise). */
  cancel(jobId: string, options: RequestOptions = {}): Promise<WithMeta<TerminalJob>> {
    return sendJson<TerminalJob>(this.http, { ...options, method: 'DELETE', path: `${API}/leads/jobs/${seg(jobId)}` });
  }

  /** One page of the account's jobs, newest first. */
  page(filter: JobFilter & { cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<JobPage>> {
    return sendJson<JobPage>(this.http, { ...options, method: 'GET', path: `${API}/leads/jobs${query({ ...filter })}` });
  }

  /** Every page: `for await (const page of client.jobs.pages())`. */
  pages(filter: JobFilter = {}, options: RequestOptions = {}): AsyncGenerator<WithMeta<JobPage>> {
    return pages((cursor) => this.page({ ...filter, cursor }, options));
  }

  /** Every job, newest first, fetched page by page as you read: `for await (const job of client.jobs.list())`. */
  list(filter: JobFilter = {}, options: RequestOptions = {}): AsyncGenerator<JobSummary> {
    return items(this.pages(filter, options));
  }

  /** The job's webhook deliveries, to the account's endpoints and its own `webhookUrl`, oldest first. */
  webhookDeliveries(jobId: string, options: RequestOptions = {}): Promise<WithMeta<{ items: WebhookDelivery[] }>> {
    return sendJson(this.http, { ...options, method: 'GET', path: `${API}/leads/jobs/${seg(jobId)}/webhook-deliveries` });
  }

  /** Sends one of the job's finished deliveries again (the way to resend one to its own `webhookUrl`). */
  retryWebhookDelivery(jobId: string, deliveryId: string, options: RequestOptions = {}): Promise<WithMeta<WebhookDelivery>> {
    return sendJson(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/leads/jobs/${seg(jobId)}/webhook-deliveries/${seg(deliveryId)}/retry`,
    });
  }
}
