/**
 * A domain-level verdict on one email address, read from DNS alone (docs/api.md, "Email
 * verification"). It says whether the address's domain takes mail at all, never whether the
 * mailbox exists: nobody's mail server is ever contacted.
 */
export type MailStatus = 'accepts_mail' | 'no_mail' | 'unknown';

export const MAIL_STATUSES: readonly MailStatus[] = ['accepts_mail', 'no_mail', 'unknown'];

export interface EmailChecks {
  /** an RFC 5322 addr-spec as mail systems accept it (dot-atom local part, a resolvable host name; IDN through punycode) */
  syntax: boolean;
  /** the domain is on the kept list of disposable (throw-away) mail domains */
  disposable: boolean;
  /** the domain is a free mailbox provider (gmail.com, outlook.com, gmx.de, web.de, ...) */
  freeProvider: boolean;
  /** the local part names a function, not a person (info@, sales@, support@, ...) */
  roleAccount: boolean;
}

export interface EmailVerification {
  status: MailStatus;
  checks: EmailChecks;
  /** when the domain's DNS answer was read (a cached answer keeps its time) */
  checkedAt: string;
}

/** An address the lead's `email` may be: its domain is not known to refuse mail, it is well formed and not disposable. */
export function mayBeLeadEmail(verification: EmailVerification): boolean {
  return verification.status !== 'no_mail' && verification.checks.syntax && !verification.checks.disposable;
}

/** An address that counts as the email channel (shopify's requiredChannels): its domain is known to take mail. */
export function countsAsEmailChannel(verification: EmailVerification | null | undefined): boolean {
  return verification?.status === 'accepts_mail' && verification.checks.syntax && !verification.checks.disposable;
}
