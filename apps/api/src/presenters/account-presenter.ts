import type { AccountRecord, CreditSummary } from '@leadgen/db';
import { isTestAccountId } from '@leadgen/domain';

/** GET /api/v1/account: who the key belongs to and what it can spend; a test key's is its account's test account. */
export function presentAccount(account: AccountRecord, credits: CreditSummary) {
  return { accountId: account.id, name: account.name, mode: isTestAccountId(account.id) ? 'test' : 'live', credits };
}
