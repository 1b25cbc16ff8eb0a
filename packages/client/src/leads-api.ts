import type { BatchLeadPage, LeadItem, LeadPage, ResultSetPage, Source } from './api-bodies.js';
import { send, sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, jsonLines, pages, query, seg } from './query-string.js';
import type { ResponseMeta, WithMeta } from './response-meta.js';

const API = '/api/v1';

export interface LeadFilter {
  jobId?: string;
  source?: Source;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
}

/** Which leads: the account's (with a filter), one job's, one result set's, or one batch's. */
export type LeadSelection = LeadFilter | { ofJob: string } | { resultSet: string } | { ofBatch: string };

function listingPath(selection: LeadSelection, extension = '', cursor?: string, limit?: number): string {
  if ('ofJob' in selection) return `${API}/leads/jobs/${seg(selection.ofJob)}/leads${extension}${query({ cursor, limit })}`;
  if ('ofBatch' in selection) return `${API}/leads/batches/${seg(selection.ofBatch)}/leads${extension}${query({ cursor, limit })}`;
  if ('resultSet' in selection) return `${API}/leads/result-sets/${seg(selection.resultSet)}${extension}${query({ cursor, limit })}`;
  return `${API}/leads${extension}${query({ ...selection, cursor, limit })}`;
}

/** Delivered leads: JSON pages, every lead one by one, or the whole selection as CSV or JSON Lines. */
export class LeadsApi {
  constructor(private readonly http: HttpOptions) {}

  /** One JSON page of the account's leads (oldest job first). */
  page(filter: LeadFilter & { cursor?: string; limit?: number } = {}, options: RequestOptions = {}): Promise<WithMeta<LeadPage>> {
    const { cursor, limit, ...selection } = filter;
    return sendJson<LeadPage>(this.http, { ...options, method: 'GET', path: listingPath(selection, '', cursor, limit) });
  }

  /** One JSON page of a job's leads (a running job's so far: `complete` false). */
  jobPage(jobId: string, paging: { cursor?: string; limit?: number } = {}, options: RequestOptions = {}): Promise<WithMeta<ResultSetPage>> {
    return sendJson<ResultSetPage>(this.http, {
      ...options,
      method: 'GET',
      path: listingPath({ ofJob: jobId }, '', paging.cursor, paging.limit),
    });
  }

  /** One JSON page of a result set: the same answer as its job's leads. */
  resultSetPage(
    resultSetId: string,
    paging: { cursor?: string; limit?: number } = {},
    options: RequestOptions = {},
  ): Promise<WithMeta<ResultSetPage>> {
    return sendJson<ResultSetPage>(this.http, {
      ...options,
      method: 'GET',
      path: listingPath({ resultSet: resultSetId }, '', paging.cursor, paging.limit),
    });
  }

  /** Every page of the selection. */
  pages(
    selection: LeadSelection = {},
    options: RequestOptions & { limit?: number } = {},
  ): AsyncGenerator<WithMeta<LeadPage | ResultSetPage | BatchLeadPage>> {
    return pages((cursor) =>
      sendJson<LeadPage | ResultSetPage | BatchLeadPage>(this.http, {
        ...options,
        method: 'GET',
        path: listingPath(selection, '', cursor, options.limit),
      }),
    );
  }

  /** Every lead of the selection, page by page as you read: `for await (const item of client.leads.list({ ofJob }))`. */
  list(selection: LeadSelection = {}, options: RequestOptions & { limit?: number } = {}): AsyncGenerator<LeadItem> {
    return items(this.pages(selection, options));
  }

  /** The whole selection streamed as JSON Lines, yielded one by one as they arrive: constant memory however many. */
  async *stream(selection: LeadSelection = {}, options: RequestOptions = {}): AsyncGenerator<LeadItem> {
    const { value } = await send(
      this.http,
      { ...options, method: 'GET', path: listingPath(selection, '.jsonl') },
      async (response) => response.body!,
    );
    yield* jsonLines<LeadItem>(value);
  }

  /** The whole selection as CSV bytes (docs/api.md lists the columns), to pipe into a file or an upload. */
  async csv(
    selection: LeadSelection = {},
    options: RequestOptions = {},
  ): Promise<{ body: ReadableStream<Uint8Array>; meta: ResponseMeta }> {
    const { value, meta } = await send(
      this.http,
      { ...options, method: 'GET', path: listingPath(selection, '.csv') },
      async (response) => response.body!,
    );
    return { body: value, meta };
  }
}
