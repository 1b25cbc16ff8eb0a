import type { Config } from '@leadgen/config';
import {
  abandonWebhookDelivery,
  loadDeliveryForAttempt,
  recordWebhookAttempt,
  type AttemptDecision,
  type AttemptResult,
  type Database,
} from '@leadgen/db';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import { webhookNetworkPolicy } from '@leadgen/network-guard';
import {
  WebhookDeliveryFailed,
  WebhookParked,
  WebhookRetryLater,
  type Job,
  type WebhookDeliveryHandler,
  type WebhookDeliveryPayload,
} from '@leadgen/queue';
import { PING_EVENT } from '@leadgen/domain';
import { concealPrivateTarget, sendWebhook } from './send-webhook';
import { webhookTargetOf, type AccountPass, type TargetGate } from './target-gate';
import { signatureHeaders, webhookEnvelope } from './webhook-message';

const USER_AGENT = 'leadgen-webhooks/1.0 (Standard Webhooks)';
/** A ping tests the receiver: one retry at most, so a ping costs two outbound POSTs, not eight. */
export const PING_ATTEMPTS = 2;
/** ±20 % around each wait of the schedule, so the retries of many deliveries spread out. */
const JITTER = 0.2;

export interface AttemptContext {
  /** attempts of this round made before this one */
  roundAttempts: number;
  /** attempts a round may make at most, whatever the schedule: a ping's is PING_ATTEMPTS */
  maxRoundAttempts?: number;
  isEndpoint: boolean;
  /** the endpoint's failure streak's start, if it is in one */
  failingSince: Date | null;
  scheduleMs: readonly number[];
  disableAfterMs: number;
  now: Date;
  random?: () => number;
}

/** What an attempt's result means for its delivery and endpoint, and how long BullMQ waits before the next one. */
export function decideAfterAttempt(result: AttemptResult, context: AttemptContext): AttemptDecision & { retryInMs: number | null } {
  if (result.succeeded) return { status: 'succeeded', nextAttemptAt: null, disableEndpoint: null, retryInMs: null };
  if (result.responseStatus === 410)
    return { status: 'failed', nextAttemptAt: null, disableEndpoint: context.isEndpoint ? 'gone' : null, retryInMs: null };
  const failingSince = context.failingSince ?? result.startedAt;
  if (context.isEndpoint && context.now.getTime() - failingSince.getTime() >= context.disableAfterMs) {
    return { status: 'failed', nextAttemptAt: null, disableEndpoint: 'failing', retryInMs: null };
  }
  const last = context.maxRoundAttempts !== undefined && context.roundAttempts + 1 >= context.maxRoundAttempts;
  const wait = last ? undefined : context.scheduleMs[context.roundAttempts];
  if (wait === undefined) return { status: 'failed', nextAttemptAt: null, disableEndpoint: null, retryInMs: null };
  const retryInMs = Math.round(wait * (1 - JITTER + 2 * JITTER * (context.random ?? Math.random)()));
  return { status: 'pending', nextAttemptAt: new Date(context.now.getTime() + retryInMs), disableEndpoint: null, retryInMs };
}

const SENT_BUT_UNANSWERED = new Set(['network_error', 'connection_refused', 'connection_reset', 'host_unreachable', 'tls_error']);

/** A bounded label for an attempt's outcome. */
export function attemptOutcome(result: AttemptResult): string {
  const status = result.responseStatus;
  if (status === null) {
    if (result.error === 'timeout') return 'timeout';
    if (result.error !== null && SENT_BUT_UNANSWERED.has(result.error)) return 'network_error';
    return 'refused'; // the SSRF guard, DNS, a bad URL: never sent
  }
  if (status === 410) return '410';
  return status >= 200 && status < 600 ? `${Math.floor(status / 100)}xx` : 'network_error';
}

function describe(result: AttemptResult): string {
  return result.responseStatus === null
    ? (result.error ?? 'no answer')
    : `HTTP ${result.responseStatus}${result.error ? ` (${result.error})` : ''}`;
}

// A delivery refused a place is parked: its entry waits in BullMQ's delayed set until an attempt at the target or
// account that refused it ends and wakes it (the gate's leave), or this long at most (± JITTER), should no attempt
// end there (a worker that died mid-attempt: its lease lapses unannounced). Before, it was put back after 0.5 s,
// doubling to a minute: an account with hundreds of deliveries to a tarpit had them taken, refused and put back
// again and again ahead of every other account's (issue 31, finding 2).
export const PARKED_BACKSTOP_MS = 60_000;
const backstop = () => Math.round(PARKED_BACKSTOP_MS * (1 - JITTER + 2 * JITTER * Math.random()));
// Without the entry's lock (a caller outside BullMQ) a refused delivery waits this long instead.
const BUSY_WAIT_MS = 500;

/** What the gate needs of the queue: to wake the deliveries an attempt's end lets through. */
export interface DeliveryGate {
  gate: TargetGate;
  wake(deliveryIds: readonly string[]): Promise<void>;
}

/**
 * One attempt of one delivery: read it from PostgreSQL (a delivery no longer pending is done: the
 * entry was a duplicate), sign the event and send it, keep the attempt, and tell BullMQ when to try
 * again (WebhookRetryLater) or that it is over (WebhookDeliveryFailed).
 */
export function createWebhookDeliveryHandler(config: Config, db: Database, gating?: DeliveryGate): WebhookDeliveryHandler {
  const policy = webhookNetworkPolicy(config.webhooks.allowPrivateNetworks);
  // In production private targets are reachable only when acknowledged (PRODUCTION_UNSAFE_ACKNOWLEDGED):
  // their answers stay out of the account's delivery log. Elsewhere a local receiver is the developer's own.
  const concealPrivate = config.env === 'production';
  const gate = gating?.gate;
  const wake = (ids: readonly string[]) =>
    ids.length === 0 || !gating
      ? Promise.resolve()
      : gating.wake(ids).catch((error: Error) => logger.warn('parked webhook deliveries not woken', { error: error.message }));
  /** Out of the queue, then parked where it was refused; woken when an attempt there ends (or at its backstop). */
  const parkEntry = async (
    job: Job<WebhookDeliveryPayload>,
    token: string,
    refused: { busy: 'target' | 'account'; target: string; accountId: string },
  ): Promise<never> => {
    const reason = refused.busy === 'account' ? 'account busy' : 'endpoint busy';
    // Out of the queue first, then parked: an attempt ending in between finds it parked, or the park finds its
    // place free and the entry goes back at once (the two never miss each other).
    await job.moveToDelayed(Date.now() + backstop(), token);
    const parked = await gating!.gate.park(refused, job.data.deliveryId).catch((error: Error) => {
      logger.warn('webhook delivery not parked: it waits for its backstop', { error: error.message });
      return true;
    });
    if (!parked) await job.promote();
    throw new WebhookParked(reason);
  };
  return async (job: Job<WebhookDeliveryPayload>, token?: string) => {
    // The account's place first when the entry names its account: a delivery whose account holds all its places (a
    // tarpit's hundreds) is parked without being read from PostgreSQL, each time it is taken or woken.
    const early =
      gate && token !== undefined && job.data.accountId
        ? await gate.enterAccount(job.data.accountId, job.data.deliveryId).catch((error: Error) => {
            logger.warn('webhook account gate not asked: redis unavailable', { error: error.message });
            return null;
          })
        : null;
    if (early && !early.granted && token !== undefined && job.data.accountId)
      return parkEntry(job, token, { busy: 'account', target: '', accountId: job.data.accountId });
    let handedOver = false;
    try {
      return await attempt(job, token, early?.granted ? early : undefined, () => (handedOver = true));
    } finally {
      if (early?.granted && !handedOver) await wake(await early.giveBack().catch(() => []));
    }
  };
  async function attempt(
    job: Job<WebhookDeliveryPayload>,
    token: string | undefined,
    accountPass: (AccountPass & { granted: true }) | undefined,
    handOver: () => void,
  ) {
    const delivery = await loadDeliveryForAttempt(db, job.data.deliveryId);
    if (!delivery || delivery.status !== 'pending') return { status: delivery?.status ?? 'missing' };
    return withLogContext({ accountId: delivery.accountId, ...(delivery.job ? { jobId: delivery.job.id } : {}) }, async () => {
      if (delivery.endpointDisabled) {
        await abandonWebhookDelivery(db, delivery.id);
        throw new WebhookDeliveryFailed('endpoint disabled');
      }
      const envelope = webhookEnvelope(delivery, config.http.publicBaseUrl);
      if (!envelope) {
        logger.warn('webhook delivery has no event to send: abandoned', { deliveryId: delivery.id, eventType: delivery.eventType });
        await abandonWebhookDelivery(db, delivery.id);
        throw new WebhookDeliveryFailed('no event to send');
      }
      // A place among the target's WEBHOOK_CONCURRENCY_PER_ENDPOINT and the account's
      // WEBHOOK_CONCURRENCY_PER_ACCOUNT, or parked until one frees, holding no slot meanwhile (not an attempt:
      // nothing is recorded). Without Redis the attempt goes ahead ungated.
      const target = webhookTargetOf(delivery);
      // The account's place taken early goes with it (an entry naming another account than its row's: not).
      const held = accountPass && job.data.accountId === delivery.accountId ? accountPass : undefined;
      if (held) handOver();
      const pass = gate
        ? await gate.enter(target, delivery.accountId, delivery.id, held).catch((error: Error) => {
            logger.warn('webhook target gate not asked: redis unavailable', { error: error.message });
            return null;
          })
        : null;
      if (gate && pass && !pass.granted) {
        await wake(pass.woken);
        if (token === undefined) throw new WebhookRetryLater(BUSY_WAIT_MS, pass.busy === 'account' ? 'account busy' : 'endpoint busy');
        return parkEntry(job, token, { busy: pass.busy, target, accountId: delivery.accountId });
      }
      const body = JSON.stringify(envelope);
      const sent = await sendWebhook(delivery.url, body, signatureHeaders(delivery.id, body, delivery.secrets, new Date()), {
        policy,
        timeoutMs: pass?.granted ? pass.timeoutMs : config.webhooks.timeoutMs,
        userAgent: USER_AGENT,
      });
      if (pass?.granted) {
        const woken = await pass
          .leave({ timedOut: sent.error === 'timeout', answered: sent.responseStatus !== null })
          .catch((error: Error) => {
            logger.warn('webhook target place not given back', { error: error.message });
            return [];
          });
        await wake(woken);
      }
      const { privateTarget: _private, ...result } = concealPrivate ? concealPrivateTarget(sent) : sent;
      const decision = decideAfterAttempt(result, {
        ...(delivery.eventType === PING_EVENT ? { maxRoundAttempts: PING_ATTEMPTS } : {}),
        roundAttempts: delivery.roundAttempts,
        isEndpoint: delivery.endpointId !== null,
        failingSince: delivery.endpointFailingSince,
        scheduleMs: config.webhooks.retryScheduleMs,
        disableAfterMs: config.webhooks.disableAfterMs,
        now: new Date(),
      });
      metrics.webhookAttemptDuration.observe({ event: delivery.eventType, outcome: attemptOutcome(result) }, result.latencyMs / 1000);
      const recorded = await recordWebhookAttempt(db, delivery.id, result, decision);
      const facts = {
        deliveryId: delivery.id,
        endpointId: delivery.endpointId,
        eventType: delivery.eventType,
        attempt: delivery.attempts + 1,
        outcome: describe(result),
        latencyMs: result.latencyMs,
      };
      if (!recorded) return { status: 'done elsewhere' };
      if (decision.disableEndpoint)
        logger.warn('webhook endpoint disabled', { endpointId: delivery.endpointId, reason: decision.disableEndpoint });
      if (decision.status === 'succeeded') {
        logger.info('webhook delivered', facts);
        return { status: 'succeeded', responseStatus: result.responseStatus };
      }
      if (decision.status === 'failed') {
        logger.warn('webhook delivery failed for good', facts);
        throw new WebhookDeliveryFailed(facts.outcome);
      }
      logger.info('webhook attempt failed; retrying', { ...facts, retryInMs: decision.retryInMs });
      throw new WebhookRetryLater(decision.retryInMs ?? 0, facts.outcome);
    });
  }
}
