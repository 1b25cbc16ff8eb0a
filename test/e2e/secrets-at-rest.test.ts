import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createDatabase,
  dropDatabase,
  migrate,
  loadDeliveryForAttempt,
  resealWebhookSecrets,
  sealPlainWebhookSecrets,
  SecretBox,
  type Database,
} from '@leadgen/db';
import { newWebhookEndpointId, newWebhookSecret } from '@leadgen/domain';
import { buildAccount } from '../factories';
import { generate, startWorld, type TestWorld } from '../harness';
import { scratchDatabaseUrls } from '../runtime-role';

// A database of this file's own: the dump must see only what this file wrote (other files write plain
// secrets on purpose, and seal with the development key), and secrets:rotate must meet only its keys.
// Migrated by the owner, used as the runtime role (decision 035).
const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_secrets_${randomBytes(3).toString('hex')}`);
const databaseUrl = scratch.runtimeUrl;

// What a database reader (a dump, a read replica) sees of the webhook secrets: nothing usable.
function dumpOfTheDatabase(): string {
  return execFileSync('pg_dump', ['--data-only', '--no-owner', databaseUrl], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
}

describe('webhook secrets sealed at rest', () => {
  const key = randomBytes(32);
  let world: TestWorld;
  beforeAll(async () => {
    await migrate(scratch.ownerUrl, { runtimeRole: scratch.runtimeRole });
    world = await startWorld({
      worker: false,
      env: { DATABASE_URL: databaseUrl, SECRETS_ENCRYPTION_KEY: key.toString('base64'), WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await world.close();
    await dropDatabase(scratch.ownerUrl);
  });

  it('when every kind of secret has been shown to the owner, then a pg_dump of the database holds none of them, nor any whsec_ value', async () => {
    const account = await buildAccount(world.db, { credits: 100 });
    const shown: string[] = [];
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['job.completed'] });
    expect(created.status).toBe(201);
    shown.push(created.body.secret);
    const rotated = await world.http.post(`/api/v1/webhooks/${created.body.id}/rotate-secret`).set(account.auth);
    expect(rotated.status).toBe(200);
    shown.push(rotated.body.secret);
    // A job's own webhookUrl makes the account's default secret; revealing it, then rotating it, shows both.
    expect(
      (
        await generate(
          world,
          account,
          { category: 'dentist', state: 'US', maxResults: 1, webhookUrl: 'http://127.0.0.1:9/own' },
          { Prefer: 'respond-async' },
        )
      ).status,
    ).toBe(202);
    const revealed = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
    expect(revealed.status).toBe(200);
    shown.push(revealed.body.secret);
    const rotatedDefault = await world.http.post('/api/v1/webhooks/default-secret/rotate').set(account.auth);
    shown.push(rotatedDefault.body.secret);
    for (const secret of shown) expect(secret).toMatch(/^whsec_/);
    expect(new Set(shown).size).toBe(4);

    const dump = dumpOfTheDatabase();
    expect(dump).toContain(account.accountId); // the dump is of the database these rows are in
    for (const secret of shown) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice('whsec_'.length));
    }
    expect(dump).not.toContain('whsec_');
  }, 60_000);

  it('when a secret was stored in plain text before sealing existed, then the migration step seals it and deliveries still sign with it', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const plain = newWebhookSecret();
    const id = newWebhookEndpointId();
    await world.db.webhookEndpoint.create({
      data: { id, accountId: account.accountId, url: 'http://127.0.0.1:9/old', events: ['job.completed'], secret: plain },
    });
    await world.db.webhookDelivery.create({ data: { accountId: account.accountId, endpointId: id, eventType: 'job.completed' } });
    expect(await sealPlainWebhookSecrets(databaseUrl, [key])).toBeGreaterThanOrEqual(1);
    const stored = (await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).secret;
    expect(SecretBox.isSealed(stored)).toBe(true);
    expect(stored).not.toContain(plain);
    const delivery = (await world.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } })).id;
    expect((await loadDeliveryForAttempt(world.api.deps.db, delivery))?.secrets).toEqual([plain]);
    // Run again: nothing is left in plain text.
    expect(await sealPlainWebhookSecrets(databaseUrl, [key])).toBe(0);
  });

  it('when a new key is put in front and secrets:rotate runs, then everything opens with the new key alone', async () => {
    const account = await buildAccount(world.db, { credits: 0 });
    const created = await world.http
      .post('/api/v1/webhooks')
      .set(account.auth)
      .send({ url: 'http://127.0.0.1:9/rot', events: ['job.completed'] });
    const newKey = randomBytes(32);
    let both: Database | null = createDatabase(databaseUrl, { poolSize: 1, secretKeys: [newKey, key] });
    let onlyNew: Database | null = null;
    try {
      const report = await resealWebhookSecrets(both);
      expect(report.resealed).toBeGreaterThanOrEqual(1);
      expect((await resealWebhookSecrets(both)).resealed).toBe(0);
      onlyNew = createDatabase(databaseUrl, { poolSize: 1, secretKeys: [newKey] });
      const stored = (await onlyNew.webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.id } })).secret;
      expect(onlyNew.secrets.open(stored, `webhook_endpoints:${created.body.id}`)).toBe(created.body.secret);
      // Put the world's key back in front for the other tests of this file.
      await both.$disconnect();
      both = createDatabase(databaseUrl, { poolSize: 1, secretKeys: [key, newKey] });
      await resealWebhookSecrets(both);
    } finally {
      await both?.$disconnect();
      await onlyNew?.$disconnect();
    }
  });
});
