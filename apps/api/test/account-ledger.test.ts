import { parse } from 'csv-parse/sync';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildApiKey, buildJob, type TestAccount } from '../../../test/factories';

// The consumer's ledger and usage (issue 31, finding 10; decision 036).

interface Row {
  id: number;
  createdAt: string;
  kind: 'grant' | 'reserve' | 'release' | 'charge';
  amount: number;
  jobId: string | null;
  batchId: string | null;
  source: string | null;
}

describe('GET /account/ledger and /account/usage', () => {
  let world: TestWorld;
  let account: TestAccount;
  const jobs: Record<string, string> = {};
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 1000 });
    jobs.maps = (await buildJob(world.db, { accountId: account.accountId, status: 'COMPLETE', source: 'google_maps', maxResults: 10 })).id;
    jobs.linkedin = (await buildJob(world.db, { accountId: account.accountId, status: 'COMPLETE', source: 'linkedin', maxResults: 5 })).id;
    jobs.open = (await buildJob(world.db, { accountId: account.accountId, status: 'queued', source: 'google_maps', maxResults: 20 })).id;
  });
  afterAll(() => world.close());

  const everyPage = async (path: string): Promise<Row[]> => {
    const rows: Row[] = [];
    let next: string | null = path;
    while (next) {
      const page: import('supertest').Response = await world.http.get(next).set(account.auth);
      expect(page.status).toBe(200);
      rows.push(...page.body.items);
      next = page.body.nextCursor ? (page.get('Link')!.match(/<([^>]+)>/)![1] as string) : null;
    }
    return rows;
  };

  it('when the ledger is read, then it lists every row oldest first, pages without gaps, and adds up to the account credits', async () => {
    const whole = await world.http.get('/api/v1/account/ledger').set(account.auth);
    expect(whole.status).toBe(200);
    const rows: Row[] = whole.body.items;
    expect(rows.map((r) => r.kind)).toEqual(['grant', 'reserve', 'release', 'charge', 'reserve', 'release', 'charge', 'reserve']);
    expect(rows[0]).toMatchObject({ kind: 'grant', amount: 1000, jobId: null, source: null });
    expect(rows.filter((r) => r.jobId === jobs.linkedin).every((r) => r.source === 'linkedin')).toBe(true);
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => a - b));

    const sum = (kind: Row['kind']) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.amount, 0);
    const credits = (await world.http.get('/api/v1/account').set(account.auth)).body.credits;
    expect({ balance: sum('grant') - sum('charge'), reserved: sum('reserve') - sum('release') }).toEqual({
      balance: credits.balance,
      reserved: credits.reserved,
    });

    expect(await everyPage('/api/v1/account/ledger?limit=3')).toEqual(rows);
  });

  it('when a time range is given, then only rows written in it come, and the CSV is the same selection', async () => {
    const rows: Row[] = (await world.http.get('/api/v1/account/ledger').set(account.auth)).body.items;
    const from = rows[4]!.createdAt;
    const within = await world.http.get(`/api/v1/account/ledger?createdAfter=${from}`).set(account.auth);
    const expected = rows.filter((r) => Date.parse(r.createdAt) >= Date.parse(from));
    expect(within.body.items).toEqual(expected);
    const none = await world.http.get(`/api/v1/account/ledger?createdBefore=${rows[0]!.createdAt}`).set(account.auth);
    expect(none.body.items).toEqual([]);

    const csv = await world.http
      .get(`/api/v1/account/ledger.csv?createdAfter=${from}`)
      .set(account.auth)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => done(null, text));
      });
    expect(csv.status).toBe(200);
    expect(csv.get('Content-Type')).toMatch(/^text\/csv/);
    expect(csv.get('Content-Disposition')).toContain('ledger.csv');
    const records = parse(csv.body as string, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(records[0]!)).toEqual(['id', 'createdAt', 'kind', 'amount', 'jobId', 'batchId', 'source']);
    expect(records.map((r) => [Number(r.id), r.kind, Number(r.amount), r.jobId || null])).toEqual(
      expected.map((r) => [r.id, r.kind, r.amount, r.jobId]),
    );
  });

  it('when usage is asked for, then charges come per day and source with totals, from the ledger', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const answer = await world.http.get('/api/v1/account/usage').set(account.auth);
    expect(answer.status).toBe(200);
    expect(answer.body.to).toBe(today);
    expect(answer.body.days).toEqual([
      { date: today, source: 'google_maps', jobsCharged: 1, leadsDelivered: 10, creditsCharged: 20 },
      { date: today, source: 'linkedin', jobsCharged: 1, leadsDelivered: 5, creditsCharged: 10 },
    ]);
    expect(answer.body.totals).toMatchObject({ jobsCharged: 2, leadsDelivered: 15, creditsCharged: 30, creditsGranted: 1000 });
    expect(answer.body.totals.bySource).toContainEqual({ source: 'shopify', jobsCharged: 0, leadsDelivered: 0, creditsCharged: 0 });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const before = await world.http.get(`/api/v1/account/usage?from=2026-01-01&to=${yesterday}`).set(account.auth);
    expect(before.body.days).toEqual([]);
  });

  it('when the query is wrong, then 400 naming the parameter; another account sees nothing; a read-only key reads it', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/account/usage?from=2026-02-30', '#/from'],
      ['/api/v1/account/usage?from=2026-11-02&to=2026-11-01', '#/from'],
      ['/api/v1/account/usage?from=2024-01-01&to=2026-01-01', '#/from'],
      ['/api/v1/account/ledger?createdAfter=yesterday', '#/createdAfter'],
      ['/api/v1/account/ledger?limit=1001', '#/limit'],
      ['/api/v1/account/ledger?cursor=WyJhIiwxXQ', '#/cursor'],
      ['/api/v1/account/ledger.csv?cursor=bad', '#/cursor'],
    ];
    for (const [path, pointer] of cases) {
      const answer = await world.http.get(path).set(account.auth);
      expect([path, answer.status, answer.body.errors?.[0]?.pointer]).toEqual([path, 400, pointer]);
    }
    const other = await buildAccount(world.db, { credits: 7 });
    const theirs = await world.http.get('/api/v1/account/ledger').set(other.auth);
    expect(theirs.body.items).toEqual([expect.objectContaining({ kind: 'grant', amount: 7 })]);
    const reader = await buildApiKey(world.db, account.accountId, { scopes: ['read'] });
    expect((await world.http.get('/api/v1/account/usage').set(reader.auth)).status).toBe(200);
  });
});
