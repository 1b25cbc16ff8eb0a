import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookNetworkPolicy } from '@leadgen/network-guard';
import { concealPrivateTarget, sendWebhook } from './send-webhook';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, webhookUrlProblem } from '@leadgen/domain';
import type { AttemptResult } from '@leadgen/db';
import { PING_ATTEMPTS, attemptOutcome, decideAfterAttempt, type AttemptContext } from './deliver-webhook';
import { timeoutFor, webhookTargetOf } from './target-gate';
import { signatureHeaders, webhookEnvelope } from './webhook-message';

const now = new Date('2026-11-22T12:00:00Z');
const attempt = (fields: Partial<AttemptResult>): AttemptResult => ({
  url: 'https://hooks.example/x',
  startedAt: now,
  responseStatus: 500,
  latencyMs: 12,
  responseExcerpt: null,
  error: null,
  succeeded: false,
  ...fields,
});
const context = (fields: Partial<AttemptContext> = {}): AttemptContext => ({
  roundAttempts: 0,
  isEndpoint: true,
  failingSince: null,
  scheduleMs: [5_000, 300_000, 1_800_000],
  disableAfterMs: 3 * 24 * 3600_000,
  now,
  ...fields,
});

describe('decideAfterAttempt', () => {
  it('when a ping fails twice, then it is not retried again: two outbound POSTs per ping at most', () => {
    const ping = (roundAttempts: number) => context({ roundAttempts, maxRoundAttempts: PING_ATTEMPTS });
    expect(decideAfterAttempt(attempt({ error: 'timeout' }), ping(0))).toMatchObject({ status: 'pending' });
    expect(decideAfterAttempt(attempt({ error: 'timeout' }), ping(1))).toMatchObject({ status: 'failed', retryInMs: null });
    expect(decideAfterAttempt(attempt({ error: 'timeout' }), context({ roundAttempts: 1 }))).toMatchObject({ status: 'pending' });
  });

  it('when a target timed out twice in a row, then its attempts get a fifth of the limit, never under a second', () => {
    expect([0, 1, 2, 5].map((streak) => timeoutFor(streak, 15_000))).toEqual([15_000, 15_000, 3_000, 3_000]);
    expect(timeoutFor(2, 3_000)).toBe(1_000);
  });

  it("when a delivery targets a job's own webhookUrl, then it is gated on the URL's origin as that account's, not its path", () => {
    const a = webhookTargetOf({ endpointId: null, url: 'https://hooks.example.com/a?x=1', accountId: 'acct_1' });
    expect(webhookTargetOf({ endpointId: null, url: 'https://hooks.example.com/b', accountId: 'acct_1' })).toBe(a);
    expect(webhookTargetOf({ endpointId: null, url: 'https://other.example.com/a', accountId: 'acct_1' })).not.toBe(a);
    // Another account's deliveries to the same host are another target (issue 31, finding 2).
    expect(webhookTargetOf({ endpointId: null, url: 'https://hooks.example.com/a?x=1', accountId: 'acct_2' })).not.toBe(a);
    expect(webhookTargetOf({ endpointId: 'whep_1', url: 'https://hooks.example.com/a', accountId: 'acct_1' })).toBe('whep_1');
  });

  it('when an attempt gets a 2xx, then the delivery succeeded', () => {
    expect(decideAfterAttempt(attempt({ responseStatus: 204, succeeded: true }), context())).toMatchObject({
      status: 'succeeded',
      retryInMs: null,
      disableEndpoint: null,
    });
  });

  it('when an attempt fails, then the next waits its place in the schedule within ±20 %', () => {
    for (const [round, wait] of [
      [0, 5_000],
      [1, 300_000],
      [2, 1_800_000],
    ] as const) {
      const low = decideAfterAttempt(attempt({}), context({ roundAttempts: round, random: () => 0 }));
      const high = decideAfterAttempt(attempt({}), context({ roundAttempts: round, random: () => 1 }));
      expect([low.status, low.retryInMs, high.retryInMs]).toEqual(['pending', wait * 0.8, wait * 1.2]);
      expect(low.nextAttemptAt?.getTime()).toBe(now.getTime() + wait * 0.8);
    }
  });

  it('when the schedule is spent, then the delivery failed and the endpoint stays enabled', () => {
    expect(decideAfterAttempt(attempt({ error: 'timeout', responseStatus: null }), context({ roundAttempts: 3 }))).toMatchObject({
      status: 'failed',
      disableEndpoint: null,
    });
  });

  it("when the receiver answers 410, then the delivery failed and an endpoint is disabled as gone; a job's own URL has no endpoint to disable", () => {
    expect(decideAfterAttempt(attempt({ responseStatus: 410 }), context())).toMatchObject({ status: 'failed', disableEndpoint: 'gone' });
    expect(decideAfterAttempt(attempt({ responseStatus: 410 }), context({ isEndpoint: false }))).toMatchObject({
      status: 'failed',
      disableEndpoint: null,
    });
  });

  it('when an endpoint has failed for the whole window, then it is disabled as failing; a moment less, and it is retried', () => {
    const window = 3 * 24 * 3600_000;
    expect(decideAfterAttempt(attempt({}), context({ failingSince: new Date(now.getTime() - window) }))).toMatchObject({
      status: 'failed',
      disableEndpoint: 'failing',
    });
    expect(decideAfterAttempt(attempt({}), context({ failingSince: new Date(now.getTime() - window + 1_000) }))).toMatchObject({
      status: 'pending',
    });
  });
});

describe('attemptOutcome', () => {
  it('when attempts end in any way, then the metric label is one of a fixed few', () => {
    expect([204, 302, 404, 410, 503].map((status) => attemptOutcome(attempt({ responseStatus: status })))).toEqual([
      '2xx',
      '3xx',
      '4xx',
      '410',
      '5xx',
    ]);
    expect(
      ['timeout', 'network_error', 'connection_refused', 'forbidden_address', 'dns_failed'].map((error) =>
        attemptOutcome(attempt({ responseStatus: null, error })),
      ),
    ).toEqual(['timeout', 'network_error', 'network_error', 'refused', 'refused']);
  });
});

describe('sendWebhook', () => {
  it('when nothing listens at the target, then the attempt says connection_refused', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const result = await sendWebhook(
      `http://127.0.0.1:${port}/hook`,
      '{}',
      {},
      { policy: webhookNetworkPolicy(true), timeoutMs: 2_000, userAgent: 'test' },
    );
    expect(result).toMatchObject({ succeeded: false, responseStatus: null, error: 'connection_refused', privateTarget: true });
  });

  it('when a private target is refused, resets, times out or answers, then what is kept says none of it apart and holds no byte of the answer', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/reset') req.socket.destroy();
      else if (req.url === '/answer') res.end('internal admin page: secrets');
      // '/hold' never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const send = (url: string) => sendWebhook(url, '{}', {}, { policy: webhookNetworkPolicy(true), timeoutMs: 500, userAgent: 'test' });
    try {
      const raw = await Promise.all([
        send(`http://127.0.0.1:${closedPort}/`),
        send(`http://127.0.0.1:${port}/reset`),
        send(`http://127.0.0.1:${port}/hold`),
        send(`http://127.0.0.1:${port}/answer`),
      ]);
      // What the gate and the metrics see: every outcome apart.
      expect(raw.map((r) => r.error)).toEqual(['connection_refused', 'connection_reset', 'timeout', null]);
      const kept = raw.map(concealPrivateTarget);
      expect(kept.map((r) => [r.error, r.responseExcerpt])).toEqual([
        ['network_error', null],
        ['network_error', null],
        ['network_error', null],
        [null, null],
      ]);
      expect(kept[3]!.responseStatus).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('when the target is public, then the attempt is kept as it came', () => {
    const result = {
      url: 'https://hooks.example.com/',
      startedAt: new Date(),
      responseStatus: 500,
      latencyMs: 3,
      responseExcerpt: 'oops',
      error: null,
      succeeded: false,
      privateTarget: false,
    };
    expect(concealPrivateTarget(result)).toBe(result);
  });
});

describe('signatureHeaders', () => {
  it('when two secrets are in force, then the message verifies with either, and with no other', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: 'ping', timestamp: now.toISOString(), data: { endpointId: 'whep_x' } });
    const headers = signatureHeaders('msg_1', body, [current, previous], new Date());
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('webhookEnvelope', () => {
  it('when the job is not terminal or its status does not match the event, then there is nothing to send', () => {
    const job = { id: 'job_1', status: 'running' } as never;
    expect(webhookEnvelope({ eventType: 'job.completed', endpointId: null, createdAt: now, job }, null)).toBeNull();
    expect(webhookEnvelope({ eventType: 'ping', endpointId: null, createdAt: now, job: null }, null)).toBeNull();
  });

  it('when a subject objected, then the envelope is the recorded notice, stamped when the objection was applied, the same on every attempt', () => {
    const data = { noticeId: '7', subject: { kind: 'email', value: 'a@b.example' }, objectedAt: '2026-11-29T03:00:00.000Z' };
    const delivery = { eventType: 'subject.objected' as const, endpointId: 'whep_1', createdAt: now, job: null, eventData: data };
    expect(webhookEnvelope(delivery, null)).toEqual({ type: 'subject.objected', timestamp: data.objectedAt, data });
    expect(webhookEnvelope({ ...delivery, eventData: null }, null)).toBeNull();
  });
});

describe('webhookUrlProblem', () => {
  it('when a URL is given, then only http(s) without credentials or fragment, https unless plain http is allowed', () => {
    expect(webhookUrlProblem('https://hooks.example/x?y=1', { allowHttp: false })).toBeNull();
    expect(webhookUrlProblem('http://hooks.example/x', { allowHttp: false })).toMatch(/https/);
    expect(webhookUrlProblem('http://hooks.example/x', { allowHttp: true })).toBeNull();
    expect(webhookUrlProblem('ftp://hooks.example/x', { allowHttp: true })).toMatch(/https/);
    expect(webhookUrlProblem('https://a:b@hooks.example/x', { allowHttp: true })).toMatch(/credentials/);
    expect(webhookUrlProblem('https://hooks.example/x#y', { allowHttp: true })).toMatch(/fragment/);
    expect(webhookUrlProblem('hooks.example', { allowHttp: true })).toMatch(/absolute/);
  });
});
