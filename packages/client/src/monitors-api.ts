import type { Monitor, MonitorChange, MonitorRun, MonitorRunPage, MonitorRunStarted, NewMonitor } from './api-bodies.js';
import { send, sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, newKey, pages, query, seg } from './query-string.js';
import { withMeta, type WithMeta } from './response-meta.js';

const API = '/api/v1';

/**
 * Monitors: generation requests (one, or a batch of them) run on a schedule, each run delivering and billing only
 * leads the account never had.
 */
export class MonitorsApi {
  constructor(private readonly http: HttpOptions) {}

  create(monitor: NewMonitor, options: RequestOptions = {}): Promise<WithMeta<Monitor>> {
    return sendJson<Monitor>(this.http, { ...options, method: 'POST', path: `${API}/monitors`, body: monitor });
  }

  list(options: RequestOptions = {}): Promise<WithMeta<{ items: Monitor[] }>> {
    return sendJson(this.http, { ...options, method: 'GET', path: `${API}/monitors` });
  }

  get(id: string, options: RequestOptions = {}): Promise<WithMeta<Monitor>> {
    return sendJson<Monitor>(this.http, { ...options, method: 'GET', path: `${API}/monitors/${seg(id)}` });
  }

  /** Changes the fields sent: `{ enabled: false }` pauses, `{ enabled: true }` resumes, a new schedule moves the next run at once. */
  update(id: string, change: MonitorChange, options: RequestOptions = {}): Promise<WithMeta<Monitor>> {
    return sendJson<Monitor>(this.http, { ...options, method: 'PATCH', path: `${API}/monitors/${seg(id)}`, body: change });
  }

  /** Deletes the monitor; its runs stay readable. */
  async delete(id: string, options: RequestOptions = {}): Promise<WithMeta<{ deleted: true }>> {
    const { meta } = await send(this.http, { ...options, method: 'DELETE', path: `${API}/monitors/${seg(id)}` }, async () => undefined);
    return withMeta({ deleted: true as const }, meta);
  }

  /**
   * Runs the monitor now, once; the same `idempotencyKey` answers the same run (made for you when left out). The
   * answer is the run's job, or for a batch monitor its batch (`'batchId' in run`).
   */
  run(id: string, options: RequestOptions & { idempotencyKey?: string } = {}): Promise<WithMeta<MonitorRunStarted>> {
    return sendJson<MonitorRunStarted>(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/monitors/${seg(id)}/run`,
      headers: { 'Idempotency-Key': options.idempotencyKey ?? newKey() },
    });
  }

  runsPage(id: string, filter: { limit?: number; cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<MonitorRunPage>> {
    return sendJson<MonitorRunPage>(this.http, { ...options, method: 'GET', path: `${API}/monitors/${seg(id)}/runs${query(filter)}` });
  }

  /** Every run and skipped tick of the monitor, newest first, page by page as you read. */
  runs(id: string, filter: { limit?: number } = {}, options: RequestOptions = {}): AsyncGenerator<MonitorRun> {
    return items(pages((cursor) => this.runsPage(id, { ...filter, cursor }, options)));
  }
}
