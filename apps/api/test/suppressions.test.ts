import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

const area = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=40', maxResults: 10 };

describe('the suppression list', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 100_000 });
  });
  afterAll(() => world.close());

  const put = (who: TestAccount, body: unknown) =>
    world.http
      .put('/api/v1/suppressions')
      .set(who.auth)
      .send(body as object);

  it('when entries are not what their list says, then 400 with a pointer to each, and nothing is stored', async () => {
    const res = await put(account, { domains: ['acme.com', 'not a domain'], emails: ['x@'], phones: ['555-0100'], urls: [] });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/urls']);
    const again = await put(account, { domains: ['acme.com', 'not a domain'], emails: ['x@'], phones: ['555-0100'] });
    expect(again.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/domains/1', '#/emails/0', '#/phones/0']);
    expect((await world.http.get('/api/v1/suppressions').set(account.auth)).body.counts).toEqual({ domain: 0, email: 0, phone: 0 });
    expect((await put(account, {})).status).toBe(400);
  });

  it('when leads match the list, then they are neither delivered nor billed, the job fills up with others and says how many it passed over', async () => {
    const who = await buildAccount(world.db, { credits: 10_000 });
    const before = await generate(world, who, area);
    const [byDomain, byEmail, byPhone] = before.body.leads as Array<{
      website: string;
      email: string;
      phone: string;
      businessName: string;
    }>;
    const added = await put(who, {
      domains: [`https://WWW.${new URL(byDomain!.website).hostname}/about`],
      emails: [byEmail!.email.toUpperCase()],
      phones: [byPhone!.phone],
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ added: 3, counts: { domain: 1, email: 1, phone: 1 } });

    const after = await generate(world, who, area);
    expect(after.body.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 10 });
    expect(after.body.skipped).toEqual({ alreadyDelivered: 0, suppressed: 3, filtered: 0 });
    expect(after.body.creditsCharged).toBe(20);
    const names = (after.body.leads as Array<{ businessName: string }>).map((l) => l.businessName);
    for (const gone of [byDomain, byEmail, byPhone]) expect(names).not.toContain(gone!.businessName);

    // Another account's list changes nothing for this one.
    const other = await generate(world, account, area);
    expect(other.body.skipped.suppressed).toBe(0);
  });

  it('when 100,000 entries are uploaded, then they are stored in one call, paged in order, and can be removed', async () => {
    const who = await buildAccount(world.db, { credits: 0 });
    const emails = Array.from({ length: 100_000 }, (_, i) => `person${i}@bulk${i % 97}.example`);
    const started = Date.now();
    const res = await put(who, { emails });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ added: 100_000, counts: { domain: 0, email: 100_000, phone: 0 } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await put(who, { emails: emails.slice(0, 10) })).body.added).toBe(0);

    const first = await world.http.get('/api/v1/suppressions?kind=email&limit=1000').set(who.auth);
    expect(first.body.items).toHaveLength(1000);
    const second = await world.http.get(`/api/v1/suppressions?kind=email&limit=1000&cursor=${first.body.nextCursor}`).set(who.auth);
    expect(second.body.items[0].value > first.body.items[999].value).toBe(true);
    expect((await world.http.get('/api/v1/suppressions?cursor=bogus').set(who.auth)).body.errors[0].pointer).toBe('#/cursor');

    const removed = await world.http
      .delete('/api/v1/suppressions')
      .set(who.auth)
      .send({ emails: emails.slice(0, 500) });
    expect(removed.body).toEqual({ removed: 500, counts: { domain: 0, email: 99_500, phone: 0 } });
    const tooMany = await put(who, { emails: [...emails, 'one@more.example'] });
    expect(tooMany.status).toBe(400);
  }, 60_000);
});
