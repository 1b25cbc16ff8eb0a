/**
 * A domain-level verdict on one email address, read from DNS alone (docs/api.md, "Email
 * verification"). It says whether the address's domain takes mail at all, never whether the
 * mailbox exists: nobody's mail server is ever contacted by us.
 */
export type MailStatus = 'accepts_mail' | 'no_mail' | 'unknown';

export const MAIL_STATUSES: readonly MailStatus[] = ['accepts_mail', 'no_mail', 'unknown'];

/**
 * The mailbox-level verdict, one vocabulary whatever engine gave it (decision 034): the mailbox
 * exists (`deliverable`), does not or cannot take mail (`undeliverable`), its domain accepts every
 * recipient (`catch_all`), nothing could be learnt (`unknown`), or it exists but mailing it is
 * unwise (`risky`: full inbox, disabled, spam trap, abuse).
 */
export type MailboxVerdict = 'deliverable' | 'undeliverable' | 'catch_all' | 'unknown' | 'risky';

export const MAILBOX_VERDICTS: readonly MailboxVerdict[] = ['deliverable', 'undeliverable', 'catch_all', 'unknown', 'risky'];

/**
 * What gave the mailbox verdict: DNS alone (the default), a mailbox verification engine (EMAIL_VERIFIER), or the
 * sandbox's own engine (a rule about its `.example` mailboxes, run behind the same stage).
 */
export type VerifierEngine = 'dns' | 'reacher' | 'zerobounce' | 'sandbox';

export const VERIFIER_ENGINES: readonly VerifierEngine[] = ['dns', 'reacher', 'zerobounce', 'sandbox'];

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
  /** the mailbox-level verdict (absent only on verdicts made before decision 034) */
  verdict?: MailboxVerdict;
  /** what gave `verdict` */
  engine?: VerifierEngine;
  /** when `engine` gave `verdict` (a cached verdict keeps its time) */
  verdictAt?: string;
  /** the engine's own words for it (`is_reachable=safe`, `status=invalid/mailbox_not_found`, `no_mail`, `timeout`, ...) */
  reason?: string;
}

/** The verdict a verification made before mailbox verdicts existed reads as: what DNS alone says. */
export function mailboxVerdictOf(verification: EmailVerification): MailboxVerdict {
  return verification.verdict ?? (verification.status === 'no_mail' ? 'undeliverable' : 'unknown');
}

/**
 * An address the lead's `email` may be: well formed, not disposable, its domain not known to refuse
 * mail, and no engine found the mailbox missing (`undeliverable`) or unwise to mail (`risky`).
 */
export function mayBeLeadEmail(verification: EmailVerification): boolean {
  const verdict = mailboxVerdictOf(verification);
  return (
    verification.status !== 'no_mail' &&
    verification.checks.syntax &&
    !verification.checks.disposable &&
    verdict !== 'undeliverable' &&
    verdict !== 'risky'
  );
}

const VERDICT_RANK: Record<MailboxVerdict, number> = { deliverable: 0, catch_all: 1, unknown: 2, risky: 3, undeliverable: 4 };

/**
 * Lower is better: deliverable, then catch-all, then unknown; within one verdict, a domain known to
 * take mail before one that did not answer.
 */
export function emailRank(verification: EmailVerification): number {
  return VERDICT_RANK[mailboxVerdictOf(verification)] * 2 + (verification.status === 'accepts_mail' ? 0 : 1);
}

/**
 * An address that counts as the email channel (shopify's requiredChannels): `deliverable` or
 * `catch_all` (a catch-all server accepts the message, so it does not bounce: the buyer's measure).
 * Where no mailbox verdict could be had (`unknown`: the engine is DNS, or was down or late), the
 * domain-level rule stands: its domain is known to take mail. So an engine outage never empties a job.
 */
export function countsAsEmailChannel(verification: EmailVerification | null | undefined): boolean {
  if (!verification || !verification.checks.syntax || verification.checks.disposable) return false;
  const verdict = mailboxVerdictOf(verification);
  if (verdict === 'deliverable' || verdict === 'catch_all') return true;
  return verdict === 'unknown' && verification.status === 'accepts_mail';
}
