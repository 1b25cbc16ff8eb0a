import { randomBytes } from 'node:crypto';

// Public identifiers carry a type prefix (as Stripe's do) so a support ticket's id says what it is.
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

// Bytes at or above 252 (7 × 36) are skipped, so every character is equally likely.
const UNBIASED_LIMIT = 252;

export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT && out.length < length) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

export const newId = {
  account: () => `acc_${randomToken(20)}`,
  /** a live account's test account (decision 036): the prefix is how a worker knows its jobs go to the sandbox */
  testAccount: () => `acc_test_${randomToken(20)}`,
  apiKeyId: () => `key_${randomToken(20)}`,
  auditEvent: () => `aud_${randomToken(24)}`,
  job: () => `job_${randomToken(24)}`,
  batch: () => `bat_${randomToken(24)}`,
  resultSet: () => `rs_${randomToken(24)}`,
  monitor: () => `mon_${randomToken(24)}`,
  monitorRun: () => `mrun_${randomToken(24)}`,
  quote: () => `quo_${randomToken(24)}`,
  /** the secret itself: 40 random characters (~206 bits); `lg_test_` for a test key (decision 036) */
  apiKeySecret: (mode: 'live' | 'test' = 'live') => `lg_${mode}_${randomToken(40)}`,
};

/** Whether an account is a test account (acc_test_…), whose jobs the sandbox serves whatever the worker's upstreams. */
export const isTestAccountId = (accountId: string): boolean => accountId.startsWith('acc_test_');

export const ID_PATTERNS = {
  job: /^job_[0-9a-z]{24}$/,
  batch: /^bat_[0-9a-z]{24}$/,
  resultSet: /^rs_[0-9a-z]{24}$/,
  /** newWebhookEndpointId */
  webhookEndpoint: /^whep_[0-9a-f]{24}$/,
  /** webhook_deliveries.id's default: `msg_` and a UUID's hex */
  webhookDelivery: /^msg_[0-9a-f]{32}$/,
  /** newId.monitor */
  monitor: /^mon_[0-9a-z]{24}$/,
  /** newId.apiKeyId */
  apiKey: /^key_[0-9a-z]{20}$/,
  /** newId.quote */
  quote: /^quo_[0-9a-z]{24}$/,
};
