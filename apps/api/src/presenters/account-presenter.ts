import type { AccountRecord, CreditSummary } from '@leadgen/db';

/** GET /api/v1/account: who the key belongs to and what it can spend. */
export function presentAccount(account: AccountRecord, credits: CreditSummary) {
  return { accountId: account.id, name: account.name, credits };
}
