import { createHash } from 'node:crypto';
import {
  confirmObjection,
  confirmObjectionByLink,
  findObjection,
  insertObjection,
  objectionByLink,
  openPendingObjection,
  recordAuditEvent,
} from '@leadgen/db';
import {
  DOMAIN_PROOF,
  errors,
  newDomainProofToken,
  newObjectionId,
  newObjectionLinkToken,
  OBJECTION_LINK_TOKEN_PATTERN,
  objectionErrors,
  objectionTokenHash,
  OBJECTIONS_PATH,
  type ObjectionKind,
  type ObjectionProof,
} from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import { admitToWindow } from '@leadgen/rate-limits';
import type { ApiDependencies } from '../dependencies';
import { clientNetwork } from '../http/login-throttle';
import type { ObjectionMailer } from '../objection-mailer';
import { wellKnownUrl, type DomainControlCheck } from './domain-control-check';

// Objections by the data subjects (decision 042). Nothing here ever reads whether the service holds the
// subject: the answer and its timing cannot tell, because they do not depend on it.

/** What the objection routes need beyond the database and Redis, built once in start-api.ts. */
export interface ObjectionServices {
  /** null without MAIL_URL or PUBLIC_BASE_URL: email objections are answered as usual, and no mail goes out */
  mailer: ObjectionMailer | null;
  domainCheck: DomainControlCheck;
}

const HOUR = 3_600;
/** Requests (and domain checks) one client network may make in an hour. */
export const OBJECTIONS_PER_CLIENT_PER_HOUR = 10;

// No window counts a subject's requests: one that did (5 an hour, from anyone) let a stranger use up a domain's
// requests and keep its owner from getting a token. What a subject's requests can cost is bounded by the subject
// instead, and whatever a stranger asks, the owner's proof still works (decision 042):
// - an email: at most one mail (and one row) per address and hour; a stranger's ask mails the link to the
//   address, whose owner can use it;
// - a domain or a phone: one pending objection at a time, which every request for it is answered with (the same
//   id, token and expiry): a domain's token is no secret (publishing it takes control of the domain), and a
//   phone is confirmed by the operator's call.

// Redis keys hold a digest of the subject, never the address itself.
const subjectDigest = (kind: ObjectionKind, value: string) => createHash('sha256').update(`${kind}:${value}`).digest('hex').slice(0, 32);

async function admit(deps: ApiDependencies, key: string, limit: number, kind: ObjectionKind, outcome: string, detail: string) {
  const admission = await admitToWindow(deps.redis, key, limit, HOUR);
  if (admission.admitted) return;
  metrics.objectionRequests.inc({ kind, outcome });
  const retryAfter = Math.max(1, admission.ttlSeconds);
  throw errors.rateLimited(retryAfter, `${detail}; retry in ${retryAfter} s`);
}

export type ObjectionRequestAnswer =
  | { kind: 'email'; status: 'pending'; detail: string; linkValidHours: number }
  | {
      kind: 'domain';
      status: 'pending';
      objectionId: string;
      expiresAt: string;
      proof: { dnsTxt: { name: string; value: string }; wellKnown: { url: string; content: string } };
      verifyUrl: string;
      detail: string;
    }
  | { kind: 'phone'; status: 'pending'; objectionId: string; detail: string };

/**
 * POST /api/v1/privacy/objections: an objection waits for proof of control. An email address gets a
 * single-use link (at most one mail per address and hour, sent after the answer, so the relay's latency
 * shows in no answer); a domain gets a token to publish; a phone waits for an operator.
 */
export async function requestObjection(
  deps: ApiDependencies,
  subject: { kind: ObjectionKind; value: string },
  clientAddress: string,
): Promise<ObjectionRequestAnswer> {
  const { kind, value } = subject;
  const keys = deps.producer.keys;
  const digest = subjectDigest(kind, value);
  await admit(
    deps,
    keys.key('objections', 'client', clientNetwork(clientAddress)),
    OBJECTIONS_PER_CLIENT_PER_HOUR,
    kind,
    'client_throttled',
    `At most ${OBJECTIONS_PER_CLIENT_PER_HOUR} objection requests per hour from one network`,
  );
  const hours = deps.config.objections.linkTtlHours;
  let expiresAt = new Date(Date.now() + hours * HOUR * 1000);
  let id = newObjectionId();

  if (kind === 'email') {
    metrics.objectionRequests.inc({ kind, outcome: 'accepted' });
    // At most one mail per address and hour, whoever asks: SET NX, so concurrent requests cannot both send.
    const mayMail = (await deps.redis.set(keys.key('objections', 'mail', digest), '1', 'EX', HOUR, 'NX')) === 'OK';
    if (!mayMail) metrics.objectionRequests.inc({ kind, outcome: 'mail_throttled' });
    else {
      const link = newObjectionLinkToken();
      await insertObjection(deps.db, { id, kind, value, tokenHash: link.hash, proofToken: null, expiresAt });
      sendLink(deps.objections.mailer, value, link.token);
    }
    return {
      kind,
      status: 'pending',
      detail: `If this address receives mail, a confirmation link is on its way (at most one an hour); it works once, for ${hours} hours.`,
      linkValidHours: hours,
    };
  }

  // a domain's or a phone's pending objection is everyone's who asks for it (see above): one per subject, however
  // many ask at once (the partial unique index objections_pending_subject_key; openPendingObjection)
  const { objection, reused } = await openPendingObjection(deps.db, {
    id,
    kind,
    value,
    proofToken: kind === 'domain' ? newDomainProofToken() : null,
    expiresAt,
  });
  ({ id, expiresAt } = objection);
  metrics.objectionRequests.inc({ kind, outcome: reused ? 'reused' : 'accepted' });

  if (kind === 'domain') {
    const token = objection.proofToken!;
    return {
      kind,
      status: 'pending',
      objectionId: id,
      expiresAt: expiresAt.toISOString(),
      proof: {
        dnsTxt: { name: `${DOMAIN_PROOF.txtLabel}.${value}`, value: `${DOMAIN_PROOF.txtPrefix}${token}` },
        wellKnown: { url: wellKnownUrl(deps.config, value), content: token },
      },
      verifyUrl: `${deps.config.http.publicBaseUrl ?? ''}${OBJECTIONS_PATH}/${id}/verify`,
      detail: `Publish either proof, then POST to verifyUrl before ${expiresAt.toISOString()}.`,
    };
  }

  return {
    kind,
    status: 'pending',
    objectionId: id,
    detail: 'A phone number has no self-service proof: an operator confirms it (quote this id to them).',
  };
}

function sendLink(mailer: ObjectionMailer | null, to: string, token: string): void {
  if (!mailer) {
    metrics.objectionRequests.inc({ kind: 'email', outcome: 'mail_failed' });
    logger.warn('objection link not mailed: MAIL_URL and PUBLIC_BASE_URL must both be set');
    return;
  }
  mailer(to, token).then(
    () => metrics.objectionRequests.inc({ kind: 'email', outcome: 'mail_sent' }),
    (error: Error) => {
      metrics.objectionRequests.inc({ kind: 'email', outcome: 'mail_failed' });
      // The relay's message may quote the address: only its class is logged.
      logger.warn('objection link not mailed: the relay refused or did not answer', { error: error.name });
    },
  );
}

async function confirmed(deps: ApiDependencies, objection: { id: string; kind: ObjectionKind }, proof: ObjectionProof) {
  metrics.objectionConfirmations.inc({ kind: objection.kind, proof });
  // The trail keeps that it happened and how, never who.
  await recordAuditEvent(deps.db, {
    accountId: null,
    action: 'objection.confirmed',
    summary: { objectionId: objection.id, kind: objection.kind, proof },
    actor: 'subject',
    requestId: null,
  });
}

/** The confirmation page's GET: whether the link is one that can still confirm (reads only: a mail scanner's visit changes nothing). */
export async function linkIsPending(deps: ApiDependencies, token: unknown): Promise<boolean> {
  if (typeof token !== 'string' || !OBJECTION_LINK_TOKEN_PATTERN.test(token)) return false;
  return (await objectionByLink(deps.db, objectionTokenHash(token))) !== null;
}

/** The confirmation page's POST: confirms once; the worker applies it within the minute. */
export async function confirmByLink(deps: ApiDependencies, token: unknown): Promise<boolean> {
  if (typeof token !== 'string' || !OBJECTION_LINK_TOKEN_PATTERN.test(token)) return false;
  const objection = await confirmObjectionByLink(deps.db, objectionTokenHash(token));
  if (!objection) return false;
  await confirmed(deps, objection, 'email_link');
  return true;
}

/** POST /api/v1/privacy/objections/{id}/verify: looks for the domain's token in its DNS and on its website. */
export async function verifyDomainObjection(deps: ApiDependencies, id: string, clientAddress: string) {
  const objection = await findObjection(deps.db, id);
  if (
    !objection ||
    objection.kind !== 'domain' ||
    objection.status !== 'pending' ||
    objection.expiresAt <= new Date() ||
    !objection.proofToken
  )
    throw objectionErrors.notFound();
  // Each check reaches out to the domain's resolvers and website: counted in the client's window with its requests.
  await admit(
    deps,
    deps.producer.keys.key('objections', 'client', clientNetwork(clientAddress)),
    OBJECTIONS_PER_CLIENT_PER_HOUR,
    'domain',
    'client_throttled',
    `At most ${OBJECTIONS_PER_CLIENT_PER_HOUR} objection requests and checks per hour from one network`,
  );
  const proof = await deps.objections.domainCheck(objection.value, objection.proofToken);
  if (!proof)
    throw objectionErrors.notProven(
      `Neither the TXT record ${DOMAIN_PROOF.txtLabel}.${objection.value} nor http://${objection.value}${DOMAIN_PROOF.wellKnownPath} shows the token yet (DNS changes can take a few minutes)`,
    );
  const done = await confirmObjection(deps.db, id, proof);
  if (!done) throw objectionErrors.notFound();
  await confirmed(deps, done, proof);
  return { objectionId: id, kind: 'domain' as const, status: 'confirmed' as const, proof };
}
