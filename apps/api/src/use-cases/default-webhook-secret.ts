import { revealDefaultWebhookSecret, rotateDefaultWebhookSecret, type RevealedSecret } from '@leadgen/db';
import { newWebhookSecret, webhookErrors } from '@leadgen/domain';

import type { ApiDependencies } from '../dependencies';

/**
 * The account's default webhook secret, which signs deliveries to jobs' own `webhookUrl`: created
 * by the first such job or by this call, and shown once (decision 016).
 */
export async function revealDefaultSecret(deps: ApiDependencies, accountId: string): Promise<RevealedSecret> {
  const revealed = await revealDefaultWebhookSecret(deps.db, accountId, newWebhookSecret());
  if (!revealed) throw webhookErrors.secretAlreadyRevealed();
  return revealed;
}

/** A new default secret, shown now; the old one keeps signing for 24 hours. */
export function rotateDefaultSecret(deps: ApiDependencies, accountId: string): Promise<RevealedSecret> {
  return rotateDefaultWebhookSecret(deps.db, accountId, newWebhookSecret());
}
