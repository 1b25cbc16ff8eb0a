import { parse } from 'csv-parse/sync';
import type { Response } from 'supertest';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, buildDeliveredJobs, type TestAccount } from '../../../test/factories';

interface Item {
  jobId: string;
  resultSetId: string;
  position: number;
  deliveredAt: string;
  lead: Record<string, unknown>;
}

async function finishedJob(world: TestWorld, account: TestAccount, body: Record<string, unknown>) {
  const res = await generate(world, account, body, { Prefer: 'respond-async' });
  expect(res.status).toBe(202);
  return pollUntilTerminal(world, account, res.body.jobId as string);
}

describe('result sets and exports', () => {
  let world: TestWorld;
  let account: TestAccount;
  let stranger: TestAccount;
  let maps: { jobId: string; resultSetId: string; leads: unknown[] };
  let linkedin: { jobId: string; leads: unknown[] };
  let shopify: { jobId: string; leads: unknown[] };
  let runningJobLeads = 0;
  beforeAll(async () => {
    // the objection link of each lead's notice is PUBLIC_BASE_URL's (issue 38)
    world = await startWorld({ env: { PUBLIC_BASE_URL: 'https://leads.test.example' } });
    account = await buildAccount(world.db, { credits: 100_000 });
    stranger = await buildAccount(world.db, { credits: 100_000 });
    maps = await finishedJob(world, account, { category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 });
    linkedin = await finishedJob(world, account, { source: 'linkedin', category: 'cto', state: 'DE', maxResults: 12 });
    shopify = await finishedJob(world, account, { source: 'shopify', category: 'apparel', state: 'US', maxResults: 3 });
    await finishedJob(world, stranger, { category: 'dentist', state: 'US', maxResults: 5 });
  });
  afterAll(() => world.close());

  it('when a finished job’s leads are paged, then the pages join into exactly the job body’s leads, in delivery order', async () => {
    const items: Item[] = [];
    let url: string | null = `/api/v1/leads/jobs/${maps.jobId}/leads?limit=10`;
    while (url) {
      const res: Response = await world.http.get(url).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jobId: maps.jobId, resultSetId: maps.resultSetId, status: 'COMPLETE', complete: true });
      expect(res.headers['result-complete']).toBe('true');
      items.push(...(res.body.items as Item[]));
      // the link is absolute under PUBLIC_BASE_URL; the test's agent asks the same server by path
      url = res.headers.link ? /^<(?:https:\/\/leads\.test\.example)?([^>]+)>/.exec(res.headers.link as string)![1]! : null;
    }
    expect(items.map((i) => i.position)).toEqual([...Array(25).keys()]);
    expect(items.map((i) => i.lead)).toEqual(maps.leads);
  });

  it('when the result set is asked by its own id, then the same answer as the job’s leads', async () => {
    const byJob = await world.http.get(`/api/v1/leads/jobs/${maps.jobId}/leads`).set(account.auth);
    const bySet = await world.http.get(`/api/v1/leads/result-sets/${maps.resultSetId}`).set(account.auth);
    expect(bySet.status).toBe(200);
    expect(bySet.body).toEqual(byJob.body);
  });

  it('when another account or a malformed id asks, then 404 job_not_found', async () => {
    for (const url of [
      `/api/v1/leads/jobs/${maps.jobId}/leads`,
      `/api/v1/leads/result-sets/${maps.resultSetId}`,
      '/api/v1/leads/jobs/nope/leads',
      '/api/v1/leads/result-sets/rs_x',
    ]) {
      const res = await world.http.get(url).set(stranger.auth);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('job_not_found');
    }
    const csv = await world.http.get(`/api/v1/leads/jobs/${maps.jobId}/leads?format=csv`).set(stranger.auth);
    expect(csv.status).toBe(404);
    expect(csv.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('when a job is still running, then the leads committed so far, marked incomplete', async () => {
    const started = await generate(
      world,
      account,
      { category: 'gym', state: 'US', maxResults: 100, keyword: 'sandbox:delay=150' },
      { Prefer: 'respond-async' },
    );
    const jobId = started.body.jobId as string;
    for (let i = 0; i < 100; i += 1) {
      const job = await world.db.job.findUnique({ where: { id: jobId } });
      if ((job?.deliveredCount ?? 0) >= 10) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const res = await world.http.get(`/api/v1/leads/jobs/${jobId}/leads`).set(account.auth);
    expect(res.body).toMatchObject({ status: 'running', complete: false });
    expect(res.headers['result-complete']).toBe('false');
    expect((res.body.items as Item[]).length).toBeGreaterThanOrEqual(10);
    expect((res.body.items as Item[]).length).toBeLessThan(100);
    const cancelled = await world.http.delete(`/api/v1/leads/jobs/${jobId}`).set(account.auth).expect(200);
    // Pages keep landing between the read above and the cancel on a loaded machine: count what it kept.
    runningJobLeads = (cancelled.body.leads as unknown[]).length;
  });

  it('when the account’s leads are listed, then every lead of its jobs and none of another account’s, filtered as asked', async () => {
    const all = await world.http.get('/api/v1/leads?limit=1000').set(account.auth);
    expect(all.status).toBe(200);
    const items = all.body.items as Item[];
    const jobs = new Set(items.map((i) => i.jobId));
    expect(jobs.has(maps.jobId) && jobs.has(linkedin.jobId) && jobs.has(shopify.jobId)).toBe(true);
    const strangers = await world.http.get('/api/v1/leads?limit=1000').set(stranger.auth);
    expect((strangers.body.items as Item[]).every((i) => !jobs.has(i.jobId))).toBe(true);
    expect(strangers.body.items).toHaveLength(5);
    const bySource = await world.http.get('/api/v1/leads?source=linkedin&limit=1000').set(account.auth);
    expect((bySource.body.items as Item[]).map((i) => i.lead)).toEqual(linkedin.leads);
    const byJob = await world.http.get(`/api/v1/leads?jobId=${shopify.jobId}`).set(account.auth);
    expect((byJob.body.items as Item[]).map((i) => i.lead)).toEqual(shopify.leads);
    const none = await world.http.get('/api/v1/leads?createdBefore=2001-01-01T00:00:00Z').set(account.auth);
    expect(none.body).toEqual({ nextCursor: null, items: [] });
  });

  it('when the account’s leads are paged by 7, then the pages join into the whole list once', async () => {
    const whole = (await world.http.get('/api/v1/leads?limit=1000').set(account.auth)).body.items as Item[];
    const paged: Item[] = [];
    let cursor: string | null = null;
    do {
      const res = await world.http
        .get('/api/v1/leads')
        .query({ limit: 7, ...(cursor ? { cursor } : {}) })
        .set(account.auth);
      paged.push(...(res.body.items as Item[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    expect(paged).toEqual(whole);
  });

  it('when exported as JSON Lines (Accept or ?format), then one item per line, as an attachment', async () => {
    const res = await world.http
      .get(`/api/v1/leads/jobs/${maps.jobId}/leads`)
      .set(account.auth)
      .set('Accept', 'application/x-ndjson')
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="leads-${maps.jobId}.jsonl"`);
    const lines = (res.body as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    expect(lines.map((l) => l.lead)).toEqual(maps.leads);
    const viaQuery = await world.http.get('/api/v1/leads?format=jsonl').set(account.auth).buffer(true);
    expect(viaQuery.headers['content-type']).toMatch(/^application\/x-ndjson/);
  });

  it('when exported as CSV, then RFC 4180 with a header row and the documented flattened columns for every source', async () => {
    const res = await world.http.get('/api/v1/leads').set(account.auth).set('Accept', 'text/csv').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.text).toContain('\r\n');
    const rows = parse(res.text, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual(
      expect.arrayContaining(['jobId', 'businessName', 'socialProfiles.linkedin', 'person.fullName', 'store.domain', 'contacts']),
    );
    expect(runningJobLeads).toBeGreaterThanOrEqual(10);
    expect(rows.length).toBe(25 + 12 + shopify.leads.length + runningJobLeads);
    const person = rows.find((r) => r.jobId === linkedin.jobId)!;
    const first = linkedin.leads[0] as { person: { fullName: string }; businessName: string };
    expect(person['person.fullName']).toBe(first.person.fullName);
    const store = rows.find((r) => r.jobId === shopify.jobId)!;
    expect(store['store.domain']).toBe((shopify.leads[0] as { store: { domain: string } }).store.domain);
    expect(Array.isArray(JSON.parse(store.contacts!))).toBe(true);
    // The email's verdict in two cells, matching the lead's JSON.
    type Verified = { email: string | null; emailVerification?: { status: string; checks: Record<string, boolean> } | null };
    const withEmail = (maps.leads as Verified[]).findIndex((lead) => lead.email && lead.emailVerification);
    expect(withEmail).toBeGreaterThanOrEqual(0);
    const verdict = (maps.leads[withEmail] as Verified).emailVerification!;
    const row = rows.find((r) => r.jobId === maps.jobId && r.position === String(withEmail))!;
    expect(row['emailVerification.status']).toBe(verdict.status);
    const holding = Object.keys(verdict.checks).filter((check) => verdict.checks[check]);
    expect(row['emailVerification.checks']!.split('; ').filter(Boolean).sort()).toEqual(holding.sort());
    expect(holding).toContain('syntax');
    // The sandbox's own mailbox engine gave the verdict (decision 034), in the lead's JSON and in its cells alike.
    const mailbox = verdict as { verdict?: string; engine?: string };
    expect(row['emailVerification.verdict']).toBe(mailbox.verdict);
    expect(row['emailVerification.engine']).toBe('sandbox');
    // Added columns come after the first ones: a mapping made by position keeps working.
    const header = Object.keys(rows[0]!);
    expect(header.slice(header.indexOf('contacts'), header.indexOf('contacts') + 6)).toEqual([
      'contacts',
      'emailVerification.status',
      'emailVerification.checks',
      'emailVerification.verdict',
      'emailVerification.engine',
      'store.categoryPath',
    ]);
    // Decision 038's columns after those, flattened (lists joined by "; ", provenance one JSON cell).
    expect(header.slice(header.indexOf('store.categoryPath') + 1, header.indexOf('store.categoryPath') + 3)).toEqual([
      'retrievedAt',
      'place.placeId',
    ]);
    // Issue 38's notice last: its sources joined by "; ", when, and the objection link.
    expect(header.slice(header.indexOf('provenance'))).toEqual([
      'provenance',
      'notice.sources',
      'notice.retrievedAt',
      'notice.objectionUrl',
    ]);
    const mapsLead = maps.leads[withEmail] as {
      place: { placeId: string; googleMapsUri: string; openingHours: { weekdayDescriptions: string[] } };
      provenance: unknown;
      retrievedAt: string;
      notice: unknown;
    };
    expect(mapsLead.notice).toEqual({
      sources: ['sandbox test data'],
      retrievedAt: mapsLead.retrievedAt,
      objectionUrl: 'https://leads.test.example/api/v1/privacy/objections',
    });
    expect([row['notice.sources'], row['notice.retrievedAt'], row['notice.objectionUrl']]).toEqual([
      'sandbox test data',
      mapsLead.retrievedAt,
      'https://leads.test.example/api/v1/privacy/objections',
    ]);
    // every lead of every source carries one
    expect(rows.filter((r) => r['notice.objectionUrl'] !== 'https://leads.test.example/api/v1/privacy/objections')).toEqual([]);
    expect(row['place.placeId']).toBe(mapsLead.place.placeId);
    expect(row['place.googleMapsUri']).toBe(mapsLead.place.googleMapsUri);
    expect(row['place.openingHours']).toBe(mapsLead.place.openingHours.weekdayDescriptions.join('; '));
    expect(JSON.parse(row.provenance!)).toEqual(mapsLead.provenance);
    expect(store['store.estimatedMonthlySales']).toMatch(/^\d+$/);
    expect(person['person.company.name']).toBe(first.businessName);
  });

  it('when a download is asked at its own path (.csv, .jsonl), then the same bytes as the negotiated form, whatever Accept says', async () => {
    const pairs: Array<[string, string]> = [
      [`/api/v1/leads/jobs/${maps.jobId}/leads.csv`, `/api/v1/leads/jobs/${maps.jobId}/leads?format=csv`],
      [`/api/v1/leads/jobs/${maps.jobId}/leads.jsonl`, `/api/v1/leads/jobs/${maps.jobId}/leads?format=jsonl`],
      [`/api/v1/leads/result-sets/${maps.resultSetId}.csv`, `/api/v1/leads/result-sets/${maps.resultSetId}?format=csv`],
      [`/api/v1/leads/result-sets/${maps.resultSetId}.jsonl`, `/api/v1/leads/result-sets/${maps.resultSetId}?format=jsonl`],
      [`/api/v1/leads.csv?jobId=${maps.jobId}`, `/api/v1/leads?format=csv&jobId=${maps.jobId}`],
      [`/api/v1/leads.jsonl?jobId=${maps.jobId}`, `/api/v1/leads?format=jsonl&jobId=${maps.jobId}`],
    ];
    for (const [own, negotiated] of pairs) {
      const a = await world.http
        .get(own)
        .set(account.auth)
        .set('Accept', 'application/json')
        .buffer(true)
        .parse((r, cb) => {
          let body = '';
          r.on('data', (c: Buffer) => (body += c.toString()));
          r.on('end', () => cb(null, body));
        });
      const b = await world.http
        .get(negotiated)
        .set(account.auth)
        .buffer(true)
        .parse((r, cb) => {
          let body = '';
          r.on('data', (c: Buffer) => (body += c.toString()));
          r.on('end', () => cb(null, body));
        });
      expect([own, a.status, a.headers['content-type']]).toEqual([own, 200, b.headers['content-type']]);
      expect(a.headers['content-disposition']).toBe(b.headers['content-disposition']);
      expect(String(a.body).split('\n').length).toBe(own.includes('.csv') ? 27 : 26);
      expect(a.body).toEqual(b.body);
    }
    const missing = await world.http.get('/api/v1/leads/result-sets/rs_000000000000000000000000.csv').set(account.auth);
    expect(missing.status).toBe(404);
    expect((await world.http.post(`/api/v1/leads/jobs/${maps.jobId}/leads.csv`).set(account.auth)).status).toBe(405);
  });

  it('when a cell would run as a spreadsheet formula, then it is neutralised with a leading apostrophe', async () => {
    const job = await finishedJob(world, account, { category: 'bakery', state: 'FR', maxResults: 1 });
    const evil = {
      ...(job.leads[0] as object),
      businessName: '=HYPERLINK("http://evil.example","x")',
      address: '@SUM(A1)',
      email: '-2+3',
      website: '\tx',
      categories: ['+cmd'],
    };
    await world.db.sql.query('UPDATE leads SET data = $2 WHERE job_id = $1', [job.jobId, JSON.stringify(evil)]);
    const res = await world.http.get(`/api/v1/leads/jobs/${job.jobId}/leads?format=csv`).set(account.auth).buffer(true);
    const [row] = parse(res.text, { columns: true }) as Array<Record<string, string>>;
    expect(row!.businessName).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(row!.address).toBe("'@SUM(A1)");
    expect(row!.email).toBe("'-2+3");
    expect(row!.website).toBe("'\tx");
    expect(row!.categories).toBe("'+cmd");
  });

  it('when the parameters are bad, then 400 validation_failed with a pointer per parameter', async () => {
    const res = await world.http
      .get('/api/v1/leads?limit=1001&format=xml&source=x&jobId=1&createdAfter=now&cursor=zz&q=1')
      .set(account.auth);
    expect(res.status).toBe(400);
    expect((res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort()).toEqual(
      ['#/createdAfter', '#/cursor', '#/format', '#/jobId', '#/limit', '#/q', '#/source'].sort(),
    );
    const jobsCursor = await world.http.get('/api/v1/leads/jobs?limit=1').set(account.auth);
    const crossed = await world.http
      .get(`/api/v1/leads/jobs/${maps.jobId}/leads`)
      .query({ cursor: jobsCursor.body.nextCursor })
      .set(account.auth);
    expect(crossed.status).toBe(400);
  });
});

describe('a large export', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 0 });
    await buildDeliveredJobs(world.db, account.accountId, 100, 500);
  });
  afterAll(() => world.close());

  it('when the whole account is streamed, then every lead arrives once, in order, in batches', async () => {
    const res = await world.http
      .get('/api/v1/leads?format=jsonl')
      .set(account.auth)
      .buffer(true)
      .parse((r, cb) => {
        let lines = 0;
        let last = '';
        r.on('data', (c: Buffer) => {
          const text = last + c.toString();
          const parts = text.split('\n');
          last = parts.pop()!;
          lines += parts.length;
        });
        r.on('end', () => cb(null, lines));
      });
    expect(res.status).toBe(200);
    expect(res.body).toBe(50_000);
  });

  it('when the client hangs up, then the server stops reading batches', async () => {
    const sql = world.api.deps.db.sql;
    // Each chunk of the download is one COPY on a connection borrowed for it (lead-export-copy.ts, `await connect()`);
    // pool.query borrows with a callback, and is not counted.
    const connect = sql.connect.bind(sql) as (...args: unknown[]) => ReturnType<typeof sql.connect>;
    let batches = 0;
    const spy = jest.spyOn(sql, 'connect').mockImplementation(((...args: unknown[]) => {
      if (args.length === 0) batches += 1;
      return connect(...args);
    }) as unknown as typeof sql.connect);
    try {
      const { port } = world.api.server.address() as { port: number };
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads?format=csv`, { headers: account.auth, signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await new Promise((r) => setTimeout(r, 500));
      const after = batches;
      await new Promise((r) => setTimeout(r, 300));
      expect(batches).toBe(after);
      expect(batches).toBeGreaterThan(0);
      expect(batches).toBeLessThan(25); // 50,000 leads are 25 chunks of 2,000
    } finally {
      spy.mockRestore();
    }
  });
});
