import type { operations } from './openapi-types.js';

/**
 * Which method of LeadgenClient calls each operation of the OpenAPI document. A new operation in the
 * document fails the type check here (and packages/client/test/client-coverage.test.ts names it) until
 * it has a method: add the method to its area's file and its line here.
 */
export const OPERATION_METHODS = {
  generateLeads: 'jobs.generate',
  listJobs: 'jobs.list',
  getJob: 'jobs.get',
  cancelJob: 'jobs.cancel',
  listJobWebhookDeliveries: 'jobs.webhookDeliveries',
  retryJobWebhookDelivery: 'jobs.retryWebhookDelivery',
  getJobLeads: 'leads.jobPage',
  getJobLeadsCsv: 'leads.csv',
  getJobLeadsJsonl: 'leads.stream',
  getResultSet: 'leads.resultSetPage',
  getResultSetCsv: 'leads.csv',
  getResultSetJsonl: 'leads.stream',
  listLeads: 'leads.list',
  listLeadsCsv: 'leads.csv',
  listLeadsJsonl: 'leads.stream',
  getAccount: 'account.get',
  listAuditEvents: 'account.auditEvents',
  listSuppressions: 'suppressions.list',
  addSuppressions: 'suppressions.add',
  removeSuppressions: 'suppressions.remove',
  getLinkedinCountries: 'meta.linkedinCountries',
  getTariffs: 'meta.tariffs',
  health: 'meta.health',
  ready: 'meta.ready',
  getOpenApi: 'meta.openApi',
  createWebhookEndpoint: 'webhooks.create',
  listWebhookEndpoints: 'webhooks.list',
  getWebhookEndpoint: 'webhooks.get',
  updateWebhookEndpoint: 'webhooks.update',
  deleteWebhookEndpoint: 'webhooks.delete',
  rotateWebhookSecret: 'webhooks.rotateSecret',
  pingWebhookEndpoint: 'webhooks.ping',
  listWebhookDeliveries: 'webhooks.deliveries',
  retryWebhookDelivery: 'webhooks.retryDelivery',
  revealDefaultWebhookSecret: 'webhooks.revealDefaultSecret',
  rotateDefaultWebhookSecret: 'webhooks.rotateDefaultSecret',
} as const satisfies Record<Exclude<keyof operations, `event_${string}`>, string>;
