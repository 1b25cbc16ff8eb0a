import type {
  Account,
  AuditEventPage,
  LedgerPage,
  Usage,
  LinkedinCountries,
  ShopifyCategories,
  OpenApiDocument,
  Readiness,
  SuppressionLists,
  SuppressionPage,
  SuppressionsAdded,
  SuppressionsRemoved,
  Tariffs,
} from './api-bodies.js';
import { send, sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, pages, query } from './query-string.js';
import type { ResponseMeta, WithMeta } from './response-meta.js';

const API = '/api/v1';

/** The account and its credits. */
export class AccountApi {
  constructor(private readonly http: HttpOptions) {}

  /** The account's name and credits (balance, reserved by open jobs, available). */
  get(options: RequestOptions = {}): Promise<WithMeta<Account>> {
    return sendJson<Account>(this.http, { ...options, method: 'GET', path: `${API}/account` });
  }

  /** One page of the account's audit trail, newest first. */
  auditEventPage(filter: AuditEventFilter & { cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<AuditEventPage>> {
    return sendJson<AuditEventPage>(this.http, { ...options, method: 'GET', path: `${API}/audit-events${query(filter)}` });
  }

  /** The audit trail page by page: `for await (const page of client.account.auditEventPages())`. */
  auditEventPages(filter: AuditEventFilter = {}, options: RequestOptions = {}): AsyncGenerator<WithMeta<AuditEventPage>> {
    return pages((cursor) => this.auditEventPage({ ...filter, cursor }, options));
  }

  /** Every audit event, newest first, page by page as you read. */
  auditEvents(filter: AuditEventFilter = {}, options: RequestOptions = {}): AsyncGenerator<AuditEventPage['items'][number]> {
    return items(this.auditEventPages(filter, options));
  }

  /** One page of the account's credit ledger, oldest row first. */
  ledgerPage(filter: LedgerFilter & { cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<LedgerPage>> {
    return sendJson<LedgerPage>(this.http, { ...options, method: 'GET', path: `${API}/account/ledger${query(filter)}` });
  }

  /** Every ledger row in the range, oldest first, page by page as you read. */
  ledger(filter: LedgerFilter = {}, options: RequestOptions = {}): AsyncGenerator<LedgerPage['items'][number]> {
    return items(pages((cursor) => this.ledgerPage({ ...filter, cursor }, options)));
  }

  /** The ledger rows in the range as one CSV download (the body is streamed as it arrives). */
  async ledgerCsv(
    filter: Omit<LedgerFilter, 'limit'> = {},
    options: RequestOptions = {},
  ): Promise<{ body: ReadableStream<Uint8Array>; meta: ResponseMeta }> {
    const { value, meta } = await send(
      this.http,
      { ...options, method: 'GET', path: `${API}/account/ledger.csv${query(filter)}` },
      async (response) => response.body!,
    );
    return { body: value, meta };
  }

  /** Charges per UTC day and source between two days (YYYY-MM-DD, both included; the last 30 days by default). */
  usage(range: { from?: string; to?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<Usage>> {
    return sendJson<Usage>(this.http, { ...options, method: 'GET', path: `${API}/account/usage${query(range)}` });
  }
}

/** Which ledger rows: written at or after `createdAfter`, before `createdBefore` (RFC 3339), and how many per page. */
export type LedgerFilter = {
  createdAfter?: string;
  createdBefore?: string;
  limit?: number;
};

/** Which audit events to list: one action only, and how many per page. */
export type AuditEventFilter = {
  action?: AuditEventPage['items'][number]['action'];
  limit?: number;
};

type Kind = 'domain' | 'email' | 'phone';

/** The suppression list: a lead matching an entry is never delivered nor billed. */
export class SuppressionsApi {
  constructor(private readonly http: HttpOptions) {}

  /** One page of entries, with the count of each kind. */
  page(filter: { kind?: Kind; limit?: number; cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<SuppressionPage>> {
    return sendJson<SuppressionPage>(this.http, { ...options, method: 'GET', path: `${API}/suppressions${query(filter)}` });
  }

  /** Every entry, page by page as you read. */
  list(filter: { kind?: Kind; limit?: number } = {}, options: RequestOptions = {}): AsyncGenerator<SuppressionPage['items'][number]> {
    return items(pages((cursor) => this.page({ ...filter, cursor }, options)));
  }

  add(lists: SuppressionLists, options: RequestOptions = {}): Promise<WithMeta<SuppressionsAdded>> {
    return sendJson<SuppressionsAdded>(this.http, { ...options, method: 'PUT', path: `${API}/suppressions`, body: lists });
  }

  remove(lists: SuppressionLists, options: RequestOptions = {}): Promise<WithMeta<SuppressionsRemoved>> {
    return sendJson<SuppressionsRemoved>(this.http, { ...options, method: 'DELETE', path: `${API}/suppressions`, body: lists });
  }
}

/** Public reference data, health and the OpenAPI document (no key needed, sent anyway). */
export class MetaApi {
  constructor(private readonly http: HttpOptions) {}

  linkedinCountries(options: RequestOptions = {}): Promise<WithMeta<LinkedinCountries>> {
    return sendJson<LinkedinCountries>(this.http, { ...options, method: 'GET', path: `${API}/meta/linkedin-countries` });
  }

  /** Store Leads' category paths, which a shopify `category` is mapped onto. */
  shopifyCategories(options: RequestOptions = {}): Promise<WithMeta<ShopifyCategories>> {
    return sendJson<ShopifyCategories>(this.http, { ...options, method: 'GET', path: `${API}/meta/shopify-categories` });
  }

  tariffs(options: RequestOptions = {}): Promise<WithMeta<Tariffs>> {
    return sendJson<Tariffs>(this.http, { ...options, method: 'GET', path: `${API}/meta/tariffs` });
  }

  health(options: RequestOptions = {}): Promise<WithMeta<{ status: 'ok' }>> {
    return sendJson<{ status: 'ok' }>(this.http, { ...options, method: 'GET', path: '/healthz' });
  }

  /** Readiness; a service that is not ready answers 503, retried and then thrown as a LeadgenError. */
  ready(options: RequestOptions = {}): Promise<WithMeta<Readiness>> {
    return sendJson<Readiness>(this.http, { ...options, method: 'GET', path: '/readyz' });
  }

  openApi(options: RequestOptions = {}): Promise<WithMeta<OpenApiDocument>> {
    return sendJson<OpenApiDocument>(this.http, { ...options, method: 'GET', path: `${API}/openapi.json` });
  }
}
