export { type EngineAnswer, type MailboxEngine } from './engine';
export { MailboxCache, type CachedDomainVerdict, type CachedMailboxVerdict } from './mailbox-cache';
export { createMailboxStage, type MailboxResult, type MailboxStage, type MailboxTarget } from './mailbox-stage';
export { createReacherEngine, reacherAnswer } from './reacher-engine';
export { createSandboxMailboxEngine, SANDBOX_MAILBOX_ZONES } from './sandbox-engine';
export { createZeroBounceEngine, zeroBounceAnswer } from './zerobounce-engine';
