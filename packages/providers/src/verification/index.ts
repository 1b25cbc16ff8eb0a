export { createDnsMailCheck, type DomainMailAnswer, type DomainMailCheck } from './dns-mail-check';
export { asciiHostName, parseEmail, type ParsedEmail } from './email-checks';
export { createEmailVerifier, type EmailVerifier } from './email-verifier';
export { sandboxMailAnswer, SANDBOX_NO_MAIL_ZONE, SANDBOX_UNKNOWN_ZONE } from './sandbox-mail-rule';
export { UNKNOWN_TTL_SECONDS, VerdictCache } from './verdict-cache';
export { applyVerdicts, hasVerifiedEmailChannel, verifyLeadEmails, withEmailVerification } from './verify-lead-emails';
export * from './mailbox';
