import { loadConfig } from '@leadgen/config';
import { setLogLevel } from '@leadgen/logger';
import { testDatabaseUrls } from './runtime-role';

// Every test process: quiet logs, the test database and a queue prefix of its own.
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
// The processes connect as the runtime role, as in production (decision 035); a test that makes a database of its own
// (or must act as the owner) uses DATABASE_OWNER_URL, the role scripts/test-setup.ts migrated with.
const { ownerUrl, runtimeUrl } = testDatabaseUrls(process.env.TEST_DATABASE_URL);
process.env.DATABASE_OWNER_URL = ownerUrl;
process.env.DATABASE_URL = runtimeUrl;
process.env.QUEUE_PREFIX = process.env.QUEUE_PREFIX ?? 'leadgen-test';
// Test files share one database under their own queue prefixes: a worker's automatic lost-job sweep
// would take another file's open jobs for lost ones. Tests of the sweep set their own timing.
// A day, not ten minutes: a suite slowed down by a busy machine runs longer than that, and a worker would then take
// jobs earlier files left open or held into its own queue (the board's test saw 50 of them).
process.env.LOST_JOB_AFTER_MS = process.env.LOST_JOB_AFTER_MS ?? '86400000';
// And for borrowed slots (decision 020): a worker's idle slots would release another file's held jobs (the oldest of
// any account) into its own queue. Tests of borrowing run on a database of their own and set their reserve.
process.env.WORKER_RESERVED_SLOTS = process.env.WORKER_RESERVED_SLOTS ?? '10000';
// Worker processes that tests start must not compete for the operations port (9465).
process.env.OPS_PORT = process.env.OPS_PORT ?? '0';
// Tests revoke and expire keys and expect the very next request to be refused; the cache's own test turns it on.
process.env.AUTH_CACHE_MS = process.env.AUTH_CACHE_MS ?? '0';
// As for lost jobs: a worker's outbox sweep would take another file's pending webhook deliveries for lost ones.
process.env.WEBHOOK_LOST_AFTER_MS = process.env.WEBHOOK_LOST_AFTER_MS ?? '86400000';
// And for monitors: a worker's monitor sweep would tick another file's monitors (a test of the sweep sets its own).
process.env.MONITOR_LOST_AFTER_MS = process.env.MONITOR_LOST_AFTER_MS ?? '86400000';
// Email verification must never ask the machine's resolvers (beyond loopback): a port where nothing
// answers gives every domain `unknown` at once; tests that need verdicts start packages/testing/src/fake-dns-server.ts.
process.env.DNS_SERVERS = process.env.DNS_SERVERS ?? '127.0.0.1:9';
// As every entry point does: the logger's level from the validated configuration.
setLogLevel(loadConfig().log.level);
