import type { AcceptedBody, GenerationRequest, JobBody, JobPage, JobStatus, LeadItem, Source, TerminalJob } from './api-bodies.js';
import { retryAfterMs, send, sleep, type HttpOptions } from './http.js';

export interface ClientOptions {
  /** where the API is, e.g. https://leads.example.com (no /api/v1) */
  baseUrl: string;
  apiKey: string;
  /** a fetch of your own (a proxy agent, a test double); the runtime's by default */
  fetch?: typeof fetch;
  maxRetries?: number;
  retryBaseMs?: number;
}

/** What `generate` is given: the generation request as the API takes it (defaults may be left out). */
export type GenerateRequest = GenerationRequest;

export interface GenerateOptions {
  /** true (default): resolve with the terminal job, polling after a 202; false: answer at once (202 body or the job) */
  wait?: boolean;
  /** sent as `Prefer: wait=N` (0..60 s) when waiting; the server's default otherwise */
  serverWaitSeconds?: number;
  /** made for you (and reused across this call's retries) unless given */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface JobFilter {
  status?: JobStatus[];
  source?: Source;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** jobs per page, 1..100 */
  limit?: number;
}

export interface LeadFilter {
  jobId?: string;
  source?: Source;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
}

const API = '/api/v1';
const isTerminal = (body: JobBody | AcceptedBody): body is TerminalJob => 'terminal' in body;

function query(params: Record<string, string | number | string[] | Date | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) value.forEach((v) => search.append(name, v));
    else search.append(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A UUID where the runtime has one (Node 22, browsers, edge), else random hex. */
function newKey(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

/** The leadgen API, typed: every call takes an AbortSignal, 429 and 503 are retried after Retry-After. */
export class LeadgenClient {
  private readonly http: HttpOptions;

  constructor(options: ClientOptions) {
    this.http = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      maxRetries: options.maxRetries ?? 4,
      retryBaseMs: options.retryBaseMs ?? 500,
    };
  }

  /**
   * Starts a job. With `wait` (the default) it resolves with the terminal job: a 202 is followed by
   * polling its Location after each Retry-After. One Idempotency-Key for the call and all its retries,
   * so a retried or repeated call never makes a second job.
   */
  async generate(request: GenerateRequest, options: GenerateOptions & { wait: false }): Promise<TerminalJob | AcceptedBody>;
  async generate(request: GenerateRequest, options?: GenerateOptions): Promise<TerminalJob>;
  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<TerminalJob | AcceptedBody> {
    const wait = options.wait ?? true;
    const prefer = !wait ? 'respond-async' : options.serverWaitSeconds !== undefined ? `wait=${options.serverWaitSeconds}` : undefined;
    const response = await send(this.http, {
      method: 'POST',
      path: `${API}/leads/generate`,
      headers: { 'Idempotency-Key': options.idempotencyKey ?? newKey(), ...(prefer ? { Prefer: prefer } : {}) },
      body: request,
      signal: options.signal,
    });
    // 200 only for a job that ended within the wait; 202 otherwise.
    const body = (await response.json()) as TerminalJob | AcceptedBody;
    if (!wait || isTerminal(body)) return body;
    return this.pollUntilTerminal(response.headers.get('Location') ?? body.pollUrl, retryAfterMs(response) ?? 1000, options.signal);
  }

  private async pollUntilTerminal(location: string, firstDelayMs: number, signal?: AbortSignal): Promise<TerminalJob> {
    let delay = firstDelayMs;
    for (;;) {
      await sleep(delay, signal);
      const response = await send(this.http, { method: 'GET', path: location, signal });
      const job = (await response.json()) as JobBody;
      if (isTerminal(job)) return job;
      delay = retryAfterMs(response) ?? 1000;
    }
  }

  async getJob(jobId: string, options: { signal?: AbortSignal } = {}): Promise<JobBody> {
    const response = await send(this.http, { method: 'GET', path: `${API}/leads/jobs/${encodeURIComponent(jobId)}`, signal: options.signal });
    return (await response.json()) as JobBody;
  }

  /** Cancels a queued or running job; resolves with the CANCELLED job (a LeadgenError job_not_cancellable if it ended otherwise). */
  async cancelJob(jobId: string, options: { signal?: AbortSignal } = {}): Promise<TerminalJob> {
    const response = await send(this.http, { method: 'DELETE', path: `${API}/leads/jobs/${encodeURIComponent(jobId)}`, signal: options.signal });
    return (await response.json()) as TerminalJob;
  }

  /** The account's jobs, newest first, page by page: `for await (const page of client.listJobs())`. */
  async *listJobs(filter: JobFilter = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<JobPage> {
    let cursor: string | undefined;
    do {
      const path = `${API}/leads/jobs${query({ ...filter, status: filter.status, cursor })}`;
      const response = await send(this.http, { method: 'GET', path, signal: options.signal });
      const page = (await response.json()) as JobPage;
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * Every lead of the selection (the account's, or one job's with `jobId`), streamed as JSON Lines and
   * yielded one by one as they arrive: constant memory however many there are.
   */
  async *exportLeads(filter: LeadFilter = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<LeadItem> {
    const response = await send(this.http, {
      method: 'GET',
      path: `${API}/leads${query({ ...filter, format: 'jsonl' })}`,
      headers: { Accept: 'application/x-ndjson' },
      signal: options.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let rest = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const lines = (rest + value).split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line) yield JSON.parse(line) as LeadItem;
      }
      // A complete export ends with a newline: anything left means the connection was cut.
      if (rest) throw new Error('the export was cut short');
    } finally {
      reader.releaseLock();
      await response.body?.cancel().catch(() => undefined);
    }
  }

  /** The same selection as CSV bytes (docs/api.md lists the columns), to pipe into a file or an upload. */
  async exportLeadsCsv(filter: LeadFilter = {}, options: { signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    const response = await send(this.http, {
      method: 'GET',
      path: `${API}/leads${query({ ...filter, format: 'csv' })}`,
      headers: { Accept: 'text/csv' },
      signal: options.signal,
    });
    return response.body!;
  }
}
