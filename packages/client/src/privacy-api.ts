import type { ObjectionConfirmed, ObjectionNoticePage, ObjectionPending, ObjectionRequest } from './api-bodies.js';
import { sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, pages, query } from './query-string.js';
import type { WithMeta } from './response-meta.js';

const API = '/api/v1';

/** Objections by the people in the leads (no key needed to object), and the account's notices of them. */
export class PrivacyApi {
  constructor(private readonly http: HttpOptions) {}

  /** Starts an objection; nothing changes until control of the email address, domain or phone is proven. */
  object(subject: ObjectionRequest, options: RequestOptions = {}): Promise<WithMeta<ObjectionPending>> {
    return sendJson<ObjectionPending>(this.http, { ...options, method: 'POST', path: `${API}/privacy/objections`, body: subject });
  }

  /** Looks for a domain objection's token in the domain's DNS and on its website. */
  verify(objectionId: string, options: RequestOptions = {}): Promise<WithMeta<ObjectionConfirmed>> {
    return sendJson<ObjectionConfirmed>(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/privacy/objections/${encodeURIComponent(objectionId)}/verify`,
    });
  }

  /** One page of the account's notices, newest first. */
  noticePage(filter: { limit?: number; cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<ObjectionNoticePage>> {
    return sendJson<ObjectionNoticePage>(this.http, { ...options, method: 'GET', path: `${API}/privacy/objections${query(filter)}` });
  }

  /** Every notice, newest first, page by page as you read. */
  notices(filter: { limit?: number } = {}, options: RequestOptions = {}): AsyncGenerator<ObjectionNoticePage['items'][number]> {
    return items(pages((cursor) => this.noticePage({ ...filter, cursor }, options)));
  }
}
