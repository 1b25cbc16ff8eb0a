import type { MailboxVerdict, VerifierEngine } from '@leadgen/domain';

/** A mailbox verification engine's answer on one address, in the one vocabulary (decision 034). */
export interface EngineAnswer {
  verdict: MailboxVerdict;
  /** the engine's own words, for the buyer and the logs: `is_reachable=safe`, `status=invalid/mailbox_not_found` */
  reason: string;
  /** whether the domain accepts every recipient, when the engine's answer says so (null: it does not say) */
  catchAllDomain: boolean | null;
}

/**
 * The verifier port: one engine that probes mailboxes for us (a self-hosted Reacher, a commercial
 * API). It never decides what a verdict costs a job or whether it is kept: the mailbox stage does.
 */
export interface MailboxEngine {
  readonly name: Exclude<VerifierEngine, 'dns'>;
  /**
   * One address. Rejects with a ProviderError when the engine gave no usable answer (down, refused
   * the credentials, out of retries or of time), or with the signal's reason when it aborted.
   */
  check(address: string, signal: AbortSignal, deadline: number): Promise<EngineAnswer>;
}

/** The object at `key` of a JSON body, or null. */
export function objectAt(body: unknown, key: string): Record<string, unknown> | null {
  if (body === null || typeof body !== 'object') return null;
  const value = (body as Record<string, unknown>)[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
