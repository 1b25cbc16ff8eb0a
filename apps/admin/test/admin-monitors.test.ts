import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createDatabase, insertMonitor, type Database } from '@leadgen/db';
import { newId } from '@leadgen/domain';
import { buildAccount } from '../../../test/factories';

// The operator's monitor commands as an operator runs them: a real process, JSON on stdout.
const ROOT = path.resolve(__dirname, '../../..');

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args], {
    cwd: ROOT,
    env: process.env,
    encoding: 'utf8',
  });
  return { code: result.status, stderr: result.stderr, json: () => JSON.parse(result.stdout) as Record<string, unknown> };
}

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 1 });
});
afterAll(() => db.$disconnect());

describe('npm run admin -- monitor:*', () => {
  it("when an operator lists an account's monitors and pauses one, then it is paused with reason operator and no next run", async () => {
    const account = await buildAccount(db, { credits: 100 });
    const id = newId.monitor();
    const nextRunAt = new Date(Date.now() + 3_600_000);
    await insertMonitor(
      db,
      {
        id,
        accountId: account.accountId,
        name: 'watched',
        request: { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5 },
        schedule: { cron: '0 7 * * 1', timezone: 'Europe/Berlin' },
        webhookUrl: null,
        maxCreditsPerRun: null,
        enabled: true,
        nextRunAt,
      },
      10,
    );
    const listed = admin('monitor:list', '--account', account.accountId, '--json').json();
    expect(listed.rows).toEqual([
      expect.objectContaining({
        monitorId: id,
        name: 'watched',
        schedule: '0 7 * * 1 (Europe/Berlin)',
        enabled: true,
        pausedReason: null,
        nextRunAt: nextRunAt.toISOString(),
        lastRunStatus: null,
      }),
    ]);
    expect(admin('monitor:pause', '--monitor', id, '--json').json()).toMatchObject({
      monitorId: id,
      enabled: false,
      pausedReason: 'operator',
      nextRunAt: null,
    });
    // The operator's pause is in the account's audit trail, as the operator's.
    const { rows } = await db.sql.query('SELECT actor, action, request_id, summary FROM audit_events WHERE account_id = $1', [
      account.accountId,
    ]);
    expect(rows).toEqual([
      { actor: 'operator', action: 'monitor.paused', request_id: null, summary: { monitorId: id, fields: ['enabled'] } },
    ]);
    const missing = admin('monitor:pause', '--monitor', 'mon_nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no monitor mon_nope/);
    // Three CLI processes (tsx) in one test: as admin-cli.test.ts's tests, a minute on a loaded machine.
  }, 60_000);
});
