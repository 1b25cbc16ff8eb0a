import type { Lifecycle } from '@leadgen/commands';
import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import type { AreaSurveyor } from '@leadgen/providers';
import type { JobProducer, MonitorAlarms, RedisClient, WebhookProducer } from '@leadgen/queue';
import type { JobWaiters } from './job-waiters';
import type { TerminalBodies } from './terminal-bodies';
import type { ObjectionServices } from './use-cases/objections';

/** Everything a route or use case needs, built once in start-api.ts (or by a test) and passed down. */
export interface ApiDependencies {
  config: Config;
  db: Database;
  producer: JobProducer;
  /** commands that must fail fast while Redis is down: rate limits, readiness */
  redis: RedisClient;
  waiters: JobWaiters;
  terminalBodies: TerminalBodies;
  /** the webhook queue: a cancel's and a ping's deliveries, a manual retry (decision 016) */
  webhooks: WebhookProducer;
  /** a job's life (@leadgen/commands): creating, cancelling and their after-commit step, built once in start-api.ts */
  lifecycle: Lifecycle;
  /** the monitors' alarm clock: a schedule change moves the alarm, a delete removes it (decision 022) */
  alarms: MonitorAlarms;
  /** objections by the data subjects: the confirmation mailer and the domain check (decision 042) */
  objections: ObjectionServices;
  /** google_maps' area surveyor: a place's viewport, a quote's listings (decision 039) */
  surveyor: AreaSurveyor;
}
