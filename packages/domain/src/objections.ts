import { createHash, randomBytes } from 'node:crypto';
import { AppError } from './errors';
import { randomToken } from './ids';

// Objections by the data subjects themselves (GDPR art. 21, decision 042): what a person may object with,
// the proofs of control, and the notice every account that received them gets.

/** What a person may object with: an email address or a phone is a person; a domain is everyone on it. */
export const OBJECTION_KINDS = ['email', 'domain', 'phone'] as const;
export type ObjectionKind = (typeof OBJECTION_KINDS)[number];

export const OBJECTION_STATUSES = ['pending', 'confirmed', 'applied'] as const;
export type ObjectionStatus = (typeof OBJECTION_STATUSES)[number];

/** How control was proven. */
export type ObjectionProof = 'email_link' | 'dns_txt' | 'well_known' | 'operator';

/** The webhook every account that received an objecting subject gets (not subscribable away: it is a legal notice). */
export const SUBJECT_OBJECTED_EVENT = 'subject.objected';

/** Where the person goes: the confirmation page (GET shows a button, POST confirms). */
export const OBJECTION_PAGE_PATH = '/privacy/objections/confirm';
/** The public API path a person (or a form on the operator's site) sends an objection to. */
export const OBJECTIONS_PATH = '/api/v1/privacy/objections';

/** A domain's proofs, as certificate authorities check control (RFC 8555 §8.3, §8.4). */
export const DOMAIN_PROOF = {
  txtLabel: '_leadgen-objection',
  txtPrefix: 'leadgen-objection=',
  wellKnownPath: '/.well-known/leadgen-objection.txt',
} as const;

export const newObjectionId = (): string => `obj_${randomToken(24)}`;
export const OBJECTION_ID_PATTERN = /^obj_[0-9a-z]{24}$/;

/** An email link's secret: 32 random bytes (256 bits), base64url; only its SHA-256 is stored. */
export function newObjectionLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: objectionTokenHash(token) };
}

export const objectionTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** What a token in a link looks like: anything else is refused before a database is asked. */
export const OBJECTION_LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A domain's token to publish: public, it proves only once it is found on the domain. */
export const newDomainProofToken = (): string => randomBytes(24).toString('base64url');

/** What an account is told of a subject it received: only what its own leads held. */
export interface ObjectionNoticeIdentifiers {
  emails: string[];
  phones: string[];
  domains: string[];
}

export const objectionErrors = {
  notFound: () =>
    new AppError(404, 'objection_not_found', 'Objection not found', 'No pending domain objection with this id exists, or it has expired'),
  notProven: (detail: string) => new AppError(409, 'objection_not_proven', 'Control not proven yet', detail),
};

/** A subject as the operator board shows it (never in clear): the first 12 hex digits of its normal form's SHA-256; `admin objection:list` prints it beside the value. */
export function subjectDigest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 12);
}
