import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import { dropDatabase, migrate, runtimeRoleOf, scramVerifier } from '../src/migrator';

/**
 * Least privilege in the database (issue 31, finding 6; decision 035): the processes connect as a role that can read
 * and write rows and nothing more, so the append-only promise holds against TRUNCATE and trigger changes too. The
 * test processes connect as the runtime role scripts/test-setup.ts granted, as the API and workers do in production.
 */
async function asRuntime<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: loadConfig(process.env).database.url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const PERMISSION_DENIED = { code: '42501' };

describe('the runtime role', () => {
  it("when the processes' role sends the four statements of finding 6, then PostgreSQL refuses each", async () => {
    await asRuntime(async (client) => {
      const role = await client.query<{ user: string; owner: string }>(
        "SELECT current_user AS user, tableowner AS owner FROM pg_tables WHERE tablename = 'audit_events'",
      );
      expect(role.rows[0]!.user).not.toBe(role.rows[0]!.owner);
      await expect(client.query('TRUNCATE audit_events')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('TRUNCATE credit_ledger CASCADE')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('ALTER TABLE credit_ledger DISABLE TRIGGER credit_ledger_no_update_or_delete')).rejects.toMatchObject(
        PERMISSION_DENIED,
      );
      await expect(client.query('ALTER TABLE audit_events DISABLE TRIGGER ALL')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('SET session_replication_role = replica')).rejects.toMatchObject(PERMISSION_DENIED);
    });
  });

  it('when it tries to change rows of the append-only tables, the schema or its own grants, then it is refused', async () => {
    await asRuntime(async (client) => {
      await expect(client.query('UPDATE credit_ledger SET amount = amount WHERE false')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('DELETE FROM credit_ledger WHERE false')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('UPDATE audit_events SET action = action WHERE false')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('CREATE TABLE intruder (id int)')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('DROP TABLE leads')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query('DELETE FROM "_prisma_migrations" WHERE false')).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(
        client.query('CREATE OR REPLACE FUNCTION account_credits(p TEXT) RETURNS void LANGUAGE sql AS $$ $$'),
      ).rejects.toMatchObject(PERMISSION_DENIED);
      await expect(client.query("SELECT grant_runtime_role('postgres')")).rejects.toMatchObject(PERMISSION_DENIED);
      // What the service does need: rows, the migrator's bookkeeping read by readiness, the functions.
      expect((await client.query('SELECT count(*) FROM "_prisma_migrations"')).rows[0].count).not.toBe('0');
      expect((await client.query('SELECT count(*) FROM audit_events WHERE false')).rowCount).toBe(1);
    });
  });

  it('when the runtime role connects, then its statements, lock waits and idle transactions are bounded (decision 043)', async () => {
    const { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs } = loadConfig({}).database;
    await asRuntime(async (client) => {
      // pg_settings gives the three in milliseconds
      const { rows } = await client.query<{ name: string; setting: string }>(
        `SELECT name, setting FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout')`,
      );
      expect(Object.fromEntries(rows.map((r) => [r.name, Number(r.setting)]))).toEqual({
        statement_timeout: statementTimeoutMs,
        lock_timeout: lockTimeoutMs,
        idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
      });
      // Only the migrating role sets them (a role may always change its own defaults: they guard against accidents).
      await expect(client.query('SELECT runtime_role_timeouts(current_user, 0, 0, 0)')).rejects.toMatchObject(PERMISSION_DENIED);
    });
  });
});

describe('db:migrate with DATABASE_OWNER_URL', () => {
  const base = new URL(process.env.DATABASE_OWNER_URL!);
  const name = `leadgen_roles_${randomBytes(4).toString('hex')}`;
  const role = `${name}_app`;
  const owner = Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  const runtime = Object.assign(new URL(owner), { username: role, password: 's3cret/with:odd@chars' }).toString();

  afterAll(async () => {
    await dropDatabase(owner);
    const admin = new Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
  }, 60_000);

  it("when DATABASE_URL names another user, then migrate creates it with LOGIN and a SCRAM verifier of the URL's password, and grants it rows only", async () => {
    const runtimeRole = runtimeRoleOf(owner, runtime);
    expect(runtimeRole).toEqual({ name: role, password: 's3cret/with:odd@chars' });
    await migrate(owner, { runtimeRole });
    // Twice: idempotent, an existing role is left as it is.
    await migrate(owner, { runtimeRole: { name: role, password: 'another' } });

    const admin = new Client({ connectionString: owner });
    await admin.connect();
    try {
      const created = await admin.query<{ rolcanlogin: boolean; rolsuper: boolean; rolcreaterole: boolean; rolpassword: string }>(
        'SELECT rolcanlogin, rolsuper, rolcreaterole, rolpassword FROM pg_authid WHERE rolname = $1',
        [role],
      );
      expect(created.rows[0]).toMatchObject({ rolcanlogin: true, rolsuper: false, rolcreaterole: false });
      expect(created.rows[0]!.rolpassword).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
      const privileges = await admin.query<{ table: string; truncate: boolean; update: boolean; insert: boolean; trigger: boolean }>(
        `SELECT t.tablename AS table, has_table_privilege($1, t.tablename, 'TRUNCATE') AS truncate,
                has_table_privilege($1, t.tablename, 'UPDATE') AS update, has_table_privilege($1, t.tablename, 'INSERT') AS insert,
                has_table_privilege($1, t.tablename, 'TRIGGER') AS trigger
           FROM pg_tables t WHERE t.schemaname = 'public'`,
        [role],
      );
      expect(privileges.rows.filter((row) => row.truncate || row.trigger)).toEqual([]);
      expect(privileges.rows.find((row) => row.table === 'jobs')).toMatchObject({ update: true, insert: true });
      expect(privileges.rows.find((row) => row.table === 'credit_ledger')).toMatchObject({ update: false, insert: true });
    } finally {
      await admin.end();
    }
  }, 60_000);

  it('when both URLs log in as one role, then nothing is granted; when they name two databases, then it refuses', () => {
    expect(runtimeRoleOf(owner, owner)).toBeUndefined();
    const elsewhere = Object.assign(new URL(runtime), { pathname: '/other' }).toString();
    expect(() => runtimeRoleOf(owner, elsewhere)).toThrow(/must name the same database/);
  });

  it("when DATABASE_URL lists the owner's server among several hosts (decision 045), then its user is the runtime role; on other servers, it refuses", () => {
    const u = new URL(runtime);
    const hosts = (list: string) => `postgresql://${u.username}:pw@${list}${u.pathname}?target_session_attrs=read-write`;
    const own = `${u.hostname}:${u.port || '5432'}`;
    expect(runtimeRoleOf(owner, hosts(`db-standby:5432,${own}`))).toEqual({ name: decodeURIComponent(u.username), password: 'pw' });
    expect(() => runtimeRoleOf(owner, hosts('db-a:5432,db-b:5432'))).toThrow(/must name the same database/);
  });

  it('when a password is stored, then it is the SCRAM-SHA-256 verifier PostgreSQL computes (RFC 7677 vector)', () => {
    // RFC 7677 section 3: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations; its
    // ServerSignature v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4= is HMAC(ServerKey, AuthMessage), checked here.
    const verifier = scramVerifier('pencil', Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'));
    const serverKey = Buffer.from(verifier.split(':').pop()!, 'base64');
    const authMessage =
      'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    expect(createHmac('sha256', serverKey).update(authMessage).digest('base64')).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });
});
