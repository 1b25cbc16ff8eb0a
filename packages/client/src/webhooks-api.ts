import { Webhook } from 'standardwebhooks';
import type {
  NewWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointWithSecret,
  WebhookEvent,
  WebhookSecret,
} from './api-bodies.js';
import { send, sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, pages, query, seg } from './query-string.js';
import { withMeta, type WithMeta } from './response-meta.js';

const API = '/api/v1';
type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** Webhook endpoints, their deliveries, the signing secrets, and verifying what arrives. */
export class WebhooksApi {
  constructor(private readonly http: HttpOptions) {}

  /** Adds an endpoint; its `secret` is in this answer only. */
  create(endpoint: NewWebhookEndpoint, options: RequestOptions = {}): Promise<WithMeta<WebhookEndpointWithSecret>> {
    return sendJson<WebhookEndpointWithSecret>(this.http, { ...options, method: 'POST', path: `${API}/webhooks`, body: endpoint });
  }

  list(options: RequestOptions = {}): Promise<WithMeta<{ items: WebhookEndpoint[] }>> {
    return sendJson(this.http, { ...options, method: 'GET', path: `${API}/webhooks` });
  }

  get(id: string, options: RequestOptions = {}): Promise<WithMeta<WebhookEndpoint>> {
    return sendJson<WebhookEndpoint>(this.http, { ...options, method: 'GET', path: `${API}/webhooks/${seg(id)}` });
  }

  update(id: string, change: WebhookEndpointChange, options: RequestOptions = {}): Promise<WithMeta<WebhookEndpoint>> {
    return sendJson<WebhookEndpoint>(this.http, { ...options, method: 'PATCH', path: `${API}/webhooks/${seg(id)}`, body: change });
  }

  /** Deletes the endpoint and its deliveries; resolves with the answer's metadata. */
  async delete(id: string, options: RequestOptions = {}): Promise<WithMeta<{ deleted: true }>> {
    const { meta } = await send(this.http, { ...options, method: 'DELETE', path: `${API}/webhooks/${seg(id)}` }, async () => undefined);
    return withMeta({ deleted: true as const }, meta);
  }

  rotateSecret(id: string, options: RequestOptions = {}): Promise<WithMeta<WebhookEndpointWithSecret>> {
    return sendJson<WebhookEndpointWithSecret>(this.http, { ...options, method: 'POST', path: `${API}/webhooks/${seg(id)}/rotate-secret` });
  }

  /** Queues a `ping` event to the endpoint. */
  ping(id: string, options: RequestOptions = {}): Promise<WithMeta<WebhookDelivery>> {
    return sendJson<WebhookDelivery>(this.http, { ...options, method: 'POST', path: `${API}/webhooks/${seg(id)}/test` });
  }

  deliveriesPage(
    id: string,
    filter: { status?: DeliveryStatus; limit?: number; cursor?: string } = {},
    options: RequestOptions = {},
  ): Promise<WithMeta<WebhookDeliveryPage>> {
    return sendJson<WebhookDeliveryPage>(this.http, {
      ...options,
      method: 'GET',
      path: `${API}/webhooks/${seg(id)}/deliveries${query(filter)}`,
    });
  }

  /** Every delivery of the endpoint, newest first, page by page as you read. */
  deliveries(
    id: string,
    filter: { status?: DeliveryStatus; limit?: number } = {},
    options: RequestOptions = {},
  ): AsyncGenerator<WebhookDelivery> {
    return items(pages((cursor) => this.deliveriesPage(id, { ...filter, cursor }, options)));
  }

  retryDelivery(id: string, deliveryId: string, options: RequestOptions = {}): Promise<WithMeta<WebhookDelivery>> {
    return sendJson<WebhookDelivery>(this.http, {
      ...options,
      method: 'POST',
      path: `${API}/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}/retry`,
    });
  }

  /** The default secret (signs jobs' own `webhookUrl` deliveries): created if needed, shown once. */
  revealDefaultSecret(options: RequestOptions = {}): Promise<WithMeta<WebhookSecret>> {
    return sendJson<WebhookSecret>(this.http, { ...options, method: 'POST', path: `${API}/webhooks/default-secret` });
  }

  rotateDefaultSecret(options: RequestOptions = {}): Promise<WithMeta<WebhookSecret>> {
    return sendJson<WebhookSecret>(this.http, { ...options, method: 'POST', path: `${API}/webhooks/default-secret/rotate` });
  }

  /**
   * Checks a delivery's Standard Webhooks signature (any of the secrets in force) and timestamp (5
   * minutes of tolerance) and returns the event; throws when it does not verify. `payload` is the raw
   * body, as received: parse it only after this.
   */
  verify(payload: string, headers: Headers | Record<string, string | string[] | undefined>, secret: string): WebhookEvent {
    const get = (name: string) => {
      if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
      const record = headers as Record<string, string | string[] | undefined>;
      const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
      return Array.isArray(value) ? value.join(' ') : (value ?? '');
    };
    const signed = {
      'webhook-id': get('webhook-id'),
      'webhook-timestamp': get('webhook-timestamp'),
      'webhook-signature': get('webhook-signature'),
    };
    return new Webhook(secret).verify(payload, signed) as WebhookEvent;
  }
}
