import { purgeAuditEvents, recordAuditEvent } from '@leadgen/db';
import { buildAccount, buildDeliveredJobs } from '../../../test/factories';
import { startWorld, type TestWorld } from '../../../test/harness';

describe('the audit trail (GET /api/v1/audit-events)', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } });
  });
  afterAll(() => world.close());

  const keyIdOf = async (accountId: string) => (await world.db.apiKey.findFirstOrThrow({ where: { accountId } })).id;

  it('when an owner changes webhooks and suppressions and exports leads, then each is recorded with its key and request id, newest first, paged', async () => {
    const owner = await buildAccount(world.db, { credits: 0 });
    const stranger = await buildAccount(world.db, { credits: 0 });
    const as = (requestId: string) => ({ ...owner.auth, 'X-Request-Id': requestId });
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(as('r-create'))
      .send({ url: 'http://127.0.0.1:9/h', events: ['job.completed'] });
    expect(created.status).toBe(201);
    const endpointId = created.body.id as string;
    expect((await world.http.patch(`/api/v1/webhooks/${endpointId}`).set(as('r-change')).send({ description: 'crm' })).status).toBe(200);
    expect((await world.http.post(`/api/v1/webhooks/${endpointId}/rotate-secret`).set(as('r-rotate'))).status).toBe(200);
    expect((await world.http.delete(`/api/v1/webhooks/${endpointId}`).set(as('r-delete'))).status).toBe(204);
    expect((await world.http.post('/api/v1/webhooks/default-secret/rotate').set(as('r-default'))).status).toBe(200);
    expect(
      (
        await world.http
          .put('/api/v1/suppressions')
          .set(as('r-supp'))
          .send({ emails: ['a@b.example'] })
      ).status,
    ).toBe(200);
    const [jobId] = await buildDeliveredJobs(world.db, owner.accountId, 1, 3);
    const csv = await world.http.get(`/api/v1/leads/jobs/${jobId}/leads?format=csv`).set(as('r-export'));
    expect(csv.status).toBe(200);
    expect((await world.http.get('/api/v1/leads?format=jsonl&source=google_maps').set(as('r-export-all'))).status).toBe(200);

    const keyId = await keyIdOf(owner.accountId);
    const seen: Array<{ action: string; actor: string; requestId: string; summary: Record<string, unknown> }> = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: typeof seen; nextCursor: string | null }; get(name: string): string | undefined } =
        await world.http.get(`/api/v1/audit-events?limit=3${cursor ? `&cursor=${cursor}` : ''}`).set(owner.auth);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
      if (cursor) expect(page.get('Link')).toContain('cursor=');
    } while (cursor);
    expect(seen.map((e) => [e.action, e.requestId])).toEqual([
      ['leads.exported', 'r-export-all'],
      ['leads.exported', 'r-export'],
      ['suppressions.changed', 'r-supp'],
      ['webhook_default_secret.rotated', 'r-default'],
      ['webhook_endpoint.deleted', 'r-delete'],
      ['webhook_endpoint.secret_rotated', 'r-rotate'],
      ['webhook_endpoint.changed', 'r-change'],
      ['webhook_endpoint.created', 'r-create'],
    ]);
    expect(new Set(seen.map((e) => e.actor))).toEqual(new Set([keyId]));
    expect(seen[1]!.summary).toEqual({ selection: { jobId, resultSetId: expect.any(String) }, format: 'csv', leads: 3, complete: true });
    expect(seen[0]!.summary).toMatchObject({ selection: { source: 'google_maps' }, format: 'jsonl', leads: 3, complete: true });
    expect(seen[2]!.summary).toEqual({ added: 1 });
    // Nothing secret, nothing personal: no webhook secret, no suppressed address.
    expect(JSON.stringify(seen)).not.toMatch(/whsec_|a@b\.example/);

    // Another account sees none of it.
    expect((await world.http.get('/api/v1/audit-events').set(stranger.auth)).body).toEqual({ items: [], nextCursor: null });
  });

  it('when an owner creates, changes, pauses, resumes, runs and deletes monitors, then each is recorded with its key, without its name, requests or webhookUrl', async () => {
    const owner = await buildAccount(world.db, { credits: 1_000 });
    const as = (requestId: string) => ({ ...owner.auth, 'X-Request-Id': requestId });
    const request = { category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 };
    const created = await world.http
      .post('/api/v1/monitors')
      .set(as('m-create'))
      .send({ name: 'Dr. Jane Roe watch', request, schedule: { every: 'PT1H' }, webhookUrl: 'http://127.0.0.1:9/private-hook' });
    expect(created.status).toBe(201);
    const id = created.body.monitorId as string;
    const batch = await world.http
      .post('/api/v1/monitors')
      .set(as('m-create-batch'))
      .send({ name: 'batch', batch: { requests: [request, { ...request, city: 'Dallas' }] }, schedule: { every: 'PT1H' }, enabled: false });
    expect(batch.status).toBe(201);
    const patch = (requestId: string, body: object) => world.http.patch(`/api/v1/monitors/${id}`).set(as(requestId)).send(body);
    expect((await patch('m-change', { name: 'renamed', schedule: { every: 'PT2H' } })).status).toBe(200);
    expect((await patch('m-pause', { enabled: false })).status).toBe(200);
    expect((await patch('m-resume', { enabled: true, maxCreditsPerRun: 100 })).status).toBe(200);
    const run = await world.http.post(`/api/v1/monitors/${id}/run`).set(as('m-run')).set('Idempotency-Key', 'audit-run');
    expect(run.status).toBe(202);
    // A replay makes no run: nothing new to record.
    expect((await world.http.post(`/api/v1/monitors/${id}/run`).set(as('m-replay')).set('Idempotency-Key', 'audit-run')).status).toBe(202);
    const batchRun = await world.http
      .post(`/api/v1/monitors/${batch.body.monitorId}/run`)
      .set(as('m-run-batch'))
      .set('Idempotency-Key', 'audit-batch');
    expect(batchRun.status).toBe(202);
    expect((await world.http.delete(`/api/v1/monitors/${id}`).set(as('m-delete'))).status).toBe(204);
    // Refused requests change nothing and record nothing.
    expect((await world.http.delete(`/api/v1/monitors/${id}`).set(as('m-delete-again'))).status).toBe(404);
    expect((await world.http.post('/api/v1/monitors').set(as('m-bad')).send({ name: 'x' })).status).toBe(400);

    const page = await world.http.get('/api/v1/audit-events?limit=100').set(owner.auth);
    const events = page.body.items as Array<{ action: string; actor: string; requestId: string; summary: Record<string, unknown> }>;
    const keyId = await keyIdOf(owner.accountId);
    expect(events.map((e) => [e.action, e.requestId, e.actor])).toEqual([
      ['monitor.deleted', 'm-delete', keyId],
      ['monitor.run_requested', 'm-run-batch', keyId],
      ['monitor.run_requested', 'm-run', keyId],
      ['monitor.resumed', 'm-resume', keyId],
      ['monitor.paused', 'm-pause', keyId],
      ['monitor.changed', 'm-change', keyId],
      ['monitor.created', 'm-create-batch', keyId],
      ['monitor.created', 'm-create', keyId],
    ]);
    expect(events.map((e) => e.summary)).toEqual([
      { monitorId: id },
      { monitorId: batch.body.monitorId, batchId: batchRun.body.batchId },
      { monitorId: id, jobId: run.body.jobId },
      { monitorId: id, fields: ['enabled', 'maxCreditsPerRun'] },
      { monitorId: id, fields: ['enabled'] },
      { monitorId: id, fields: ['name', 'schedule'] },
      { monitorId: batch.body.monitorId, runs: 'batch', requests: 2, enabled: false },
      { monitorId: id, runs: 'request', requests: 1, enabled: true },
    ]);
    // Nothing the owner wrote into the monitor: no name, no request, no webhook target.
    expect(JSON.stringify(events)).not.toMatch(/Jane|renamed|Austin|dentist|private-hook|127\.0\.0\.1/);
    // Filtered by action, as any event.
    const paused = await world.http.get('/api/v1/audit-events?action=monitor.paused').set(owner.auth);
    expect(paused.body.items.map((e: { requestId: string }) => e.requestId)).toEqual(['m-pause']);
  });

  it('when the query is wrong, then 400 with a pointer to each parameter', async () => {
    const owner = await buildAccount(world.db, { credits: 0 });
    const res = await world.http.get('/api/v1/audit-events?limit=0&cursor=bogus&action=nope&x=1').set(owner.auth);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/action', '#/cursor', '#/limit', '#/x']);
  });

  it('when anything tries to change or remove an event, then PostgreSQL refuses it', async () => {
    const owner = await buildAccount(world.db, { credits: 0 });
    await recordAuditEvent(world.db, {
      accountId: owner.accountId,
      action: 'key.created',
      summary: {},
      actor: 'operator',
      requestId: null,
    });
    // The processes' role holds no UPDATE on it at all (decision 035); its DELETE meets the trigger.
    await expect(world.db.sql.query("UPDATE audit_events SET actor = 'someone' WHERE account_id = $1", [owner.accountId])).rejects.toThrow(
      /permission denied for table audit_events/,
    );
    await expect(world.db.sql.query('DELETE FROM audit_events WHERE account_id = $1', [owner.accountId])).rejects.toThrow(/append-only/);
  });
});

describe('audit retention', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when events are older than AUDIT_RETENTION_DAYS, then the purge removes them and nothing younger', async () => {
    const owner = await buildAccount(world.db, { credits: 0 });
    await recordAuditEvent(world.db, {
      accountId: owner.accountId,
      action: 'key.created',
      summary: { n: 'old' },
      actor: 'operator',
      requestId: null,
    });
    await recordAuditEvent(world.db, {
      accountId: owner.accountId,
      action: 'key.created',
      summary: { n: 'young' },
      actor: 'operator',
      requestId: null,
    });
    // Backdated as the purge's own transaction may: the trigger lets no one else change a row.
    const client = await world.db.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query("SET LOCAL leadgen.audit_purge = 'on'");
      const [old] = (
        await client.query("DELETE FROM audit_events WHERE account_id = $1 AND summary->>'n' = 'old' RETURNING *", [owner.accountId])
      ).rows;
      await client.query(
        "INSERT INTO audit_events (id, account_id, actor, action, request_id, summary, created_at) VALUES ($1, $2, $3, $4, $5, $6, now() - interval '31 days')",
        [old.id, old.account_id, old.actor, old.action, old.request_id, old.summary],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await purgeAuditEvents(world.db, 30, { batch: 1 })).events).toBeGreaterThanOrEqual(1);
    const left = await world.db.auditEvent.findMany({ where: { accountId: owner.accountId } });
    expect(left.map((e) => (e.summary as { n: string }).n)).toEqual(['young']);
  });
});
