import { randomBytes } from 'node:crypto';
import { createDatabase, openPendingObjection, type Database } from '@leadgen/db';
import { newObjectionId } from '@leadgen/domain';
import { startWorld, type TestWorld } from '../../../test/harness';

// One pending objection per domain or phone (decision 042): every request for the subject is answered with it, so
// requests at once must meet one row, not insert one each (the partial unique index objections_pending_subject_key,
// migration 20261202100000), and the ones that meet it get its answer, not a 500.
const HOUR = 3_600_000;

describe('one pending objection per subject, however many ask at once', () => {
  let world: TestWorld;
  let client = 0;
  // Each request its own client network (TRUST_PROXY=loopback believes X-Forwarded-For): no window refuses any.
  const object = (body: object) => world.http.post('/api/v1/privacy/objections').set('X-Forwarded-For', `203.0.113.${++client}`).send(body);
  const pendingRows = async (kind: string, value: string) =>
    (
      await world.db.sql.query<{ id: string; expires_at: Date }>(
        `SELECT id, expires_at FROM objections WHERE kind = $1::"SuppressionKind" AND value = $2 AND status = 'pending'`,
        [kind, value],
      )
    ).rows;

  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { TRUST_PROXY: 'loopback', PUBLIC_BASE_URL: 'http://objections.test' } });
  });
  afterAll(async () => {
    await world?.close();
  });

  it.each([
    ['domain', { domain: `race-${randomBytes(4).toString('hex')}.test` }],
    ['phone', { phone: `+49 30 ${1_000_000 + Math.floor(Math.random() * 8_000_000)}` }],
  ])(
    'when eight requests for one %s arrive at once, then each is answered 202 with the same objection, and one is stored',
    async (kind, body) => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => object(body)));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
      const value =
        kind === 'domain' ? (body as { domain: string }).domain : `+49${(body as { phone: string }).phone.replace(/\D/g, '').slice(2)}`;
      const rows = await pendingRows(kind, value);
      expect(rows.map((r) => r.id)).toEqual([answers[0]!.body.objectionId]);
    },
  );

  it('when the same domain is opened on separate connections at once, then one row is inserted and every caller reads it', async () => {
    const dbs: Database[] = Array.from({ length: 6 }, () => createDatabase(process.env.DATABASE_URL!, { poolSize: 1 }));
    try {
      const value = `conn-${randomBytes(4).toString('hex')}.test`;
      const expiresAt = new Date(Date.now() + HOUR);
      const opened = await Promise.all(
        dbs.map((db) =>
          openPendingObjection(db, { id: newObjectionId(), kind: 'domain', value, proofToken: randomBytes(8).toString('hex'), expiresAt }),
        ),
      );
      expect(new Set(opened.map((o) => o.objection.id)).size).toBe(1);
      expect(new Set(opened.map((o) => o.objection.proofToken)).size).toBe(1);
      expect(opened.filter((o) => !o.reused)).toHaveLength(1);
      expect(await pendingRows('domain', value)).toHaveLength(1);
    } finally {
      await Promise.all(dbs.map((db) => db.$disconnect()));
    }
  });

  it('when the pending objection of a domain expired unproven, then a new request renews it (same id and token, a new expiry) instead of a second row', async () => {
    const value = `expired-${randomBytes(4).toString('hex')}.test`;
    const old = { id: newObjectionId(), kind: 'domain' as const, value, proofToken: 'tok-old', expiresAt: new Date(Date.now() - 60_000) };
    expect((await openPendingObjection(world.db, old)).reused).toBe(false);
    const answer = await object({ domain: value });
    expect(answer.status).toBe(202);
    expect(answer.body.objectionId).toBe(old.id);
    expect(answer.body.proof.wellKnown.content).toBe('tok-old');
    expect(new Date(answer.body.expiresAt as string).getTime()).toBeGreaterThan(Date.now());
    const rows = await pendingRows('domain', value);
    expect(rows.map((r) => r.id)).toEqual([old.id]);
    expect(rows[0]!.expires_at.getTime()).toBeGreaterThan(Date.now());
  });
});
