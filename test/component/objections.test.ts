import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { findObjection, listAuditEvents, listObjections } from '@leadgen/db';
import { startFakeDnsServer, startSmtpSink, type FakeDnsServer, type SmtpSink } from '@leadgen/testing';
import { runCommand } from '../../apps/admin/src/commands';
import { haveBrowser, launchBrowser } from '../browser';
import { buildAccount, type TestAccount } from '../factories';
import { generate, startWorld, until, type TestWorld } from '../harness';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../webhook-receiver';
import { ownDatabase } from '../faults/fault-world';

// Objections by the people in the leads (issue 38, decision 042), end to end in one process pair: the API
// and a worker that delivers webhooks, a local SMTP relay that receives the confirmation mail, a local DNS
// server and website that show a domain's token, Chromium pressing the confirmation button, and two accounts
// that bought the same person and must both be told, by a signed webhook and by their feed.

const REQUEST = { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 20 };

interface Lead {
  email: string | null;
  phone: string | null;
  website: string | null;
}

/** A mail's text, its quoted-printable soft breaks and escapes undone (RFC 2045 §6.7). */
const decoded = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The token of the confirmation link in a mail. */
function linkToken(raw: string): string {
  const match = /http:\/\/objections\.test\/privacy\/objections\/confirm\?token=([A-Za-z0-9_-]{43})\s/.exec(decoded(raw));
  if (!match) throw new Error(`no confirmation link in the mail:\n${raw}`);
  return match[1]!;
}

function verified(secret: string, request: ReceivedWebhook) {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; data: Record<string, unknown> };
}

/** The operator CLI's commands, run in this process on the test's database (the objection commands use nothing else). */
function admin(world: TestWorld, ...argv: string[]) {
  const unused = () => {
    throw new Error('not used by the objection commands');
  };
  return runCommand(argv, {
    database: async () => world.db,
    producer: unused,
    webhooks: unused,
    lifecycle: unused,
    announceKeyEpoch: unused,
    confirm: async () => null,
  });
}

describe('objections by the people in the leads', () => {
  let world: TestWorld;
  let database: Awaited<ReturnType<typeof ownDatabase>> | undefined;
  let smtp: SmtpSink;
  let dns: FakeDnsServer;
  let site: Server;
  const files = new Map<string, string>();
  let receiver: WebhookReceiver;
  const buyers: Array<{ account: TestAccount; secret: string; jobId: string; path: string }> = [];
  let leads: Lead[];
  // Each test objects to a different lead's value, so one test's erasure leaves the next one's lead in place.
  const subjects = { email: '', domain: '', phone: '', unconfirmed: '' };
  let client = 0;
  // Each test its own client address (TRUST_PROXY=loopback believes X-Forwarded-For), so the per-network window is the test's.
  const from = () => `198.51.100.${++client}`;

  const object = (body: unknown, address = from()) =>
    world.http
      .post('/api/v1/privacy/objections')
      .set('X-Forwarded-For', address)
      .send(body as object);
  const base = () => `http://127.0.0.1:${world.api.port}`;
  const objectionOf = async (kind: string, value: string) =>
    (await listObjections(world.db, { limit: 100 })).filter((o) => o.kind === kind && o.value === value);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    dns = await startFakeDnsServer();
    site = createServer((req, res) => {
      const body = files.get(`${req.headers.host?.split(':')[0]}${req.url}`);
      res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/plain' }).end(body ?? 'not here');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // A database of its own: a confirmed objection joins the global suppression list, which every other file's
    // page commits would then have to match against (commit_page answers needs_matches to callers that did not).
    database = await ownDatabase();
    world = await startWorld({
      env: {
        DATABASE_URL: database.url,
        MAIL_URL: smtp.url,
        MAIL_FROM_ADDRESS: 'privacy@leadgen.test',
        PUBLIC_BASE_URL: 'http://objections.test',
        DNS_SERVERS: dns.server,
        ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '1',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        OBJECTION_WELL_KNOWN_PORT: String((site.address() as AddressInfo).port),
        TRUST_PROXY: 'loopback',
      },
    });
    receiver = await startWebhookReceiver();
    // Two buyers of the same people: the sandbox is deterministic, so the same request gives both the same leads.
    for (const name of ['a', 'b']) {
      const account = await buildAccount(world.db);
      const endpoint = await world.http
        .post('/api/v1/webhooks')
        .set(account.auth)
        .send({ url: receiver.url(`/${name}`), events: ['job.completed'] });
      expect(endpoint.status).toBe(201);
      const job = await generate(world, account, REQUEST, { Prefer: 'wait=30' });
      expect(job.status).toBe(200);
      buyers.push({ account, secret: endpoint.body.secret as string, jobId: job.body.jobId as string, path: `/${name}` });
      leads = job.body.leads as Lead[];
    }
    const domainOf = (l: Lead) => (l.website ? new URL(l.website).hostname.replace(/^www\./, '') : null);
    const emailLead = leads.find((l) => l.email && l.website)!;
    const domainLead = leads.find((l) => l !== emailLead && l.website && domainOf(l) !== domainOf(emailLead))!;
    const phoneLead = leads.find((l) => ![emailLead, domainLead].includes(l) && l.phone && domainOf(l) !== domainOf(domainLead))!;
    const otherLead = leads.find(
      (l) => ![emailLead, domainLead, phoneLead].includes(l) && l.email && domainOf(l) !== domainOf(domainLead),
    )!;
    subjects.email = emailLead.email!.toLowerCase();
    subjects.domain = domainOf(domainLead)!;
    subjects.phone = phoneLead.phone!;
    subjects.unconfirmed = otherLead.email!.toLowerCase();
  }, 90_000);

  afterAll(async () => {
    await world?.close();
    await database?.drop();
    await receiver?.close();
    await smtp?.close();
    await dns?.close();
    site?.close();
  });

  const jobLeads = async (buyer: (typeof buyers)[number]) => {
    const res = await world.http.get(`/api/v1/leads/jobs/${buyer.jobId}`).set(buyer.account.auth);
    expect(res.status).toBe(200);
    return res.body.leads as Lead[];
  };
  const noticesOf = (buyer: (typeof buyers)[number], type = 'subject.objected') =>
    receiver.received.filter((r) => r.path === buyer.path && JSON.parse(r.body).type === type);

  it('when a person objects by email and presses the button in Chromium, then both buyers are told, the copies go and no job delivers it again', async () => {
    const email = subjects.email;
    const before = Date.now();
    const asked = await object({ email });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'email', status: 'pending', linkValidHours: 24 });

    const mail = (
      await until(
        'the confirmation mail',
        async () => smtp.mails.filter((m) => m.to.includes(email)),
        (m) => m.length > 0,
        10_000,
      )
    )[0]!;
    expect(mail.from).toBe('privacy@leadgen.test');
    const token = linkToken(mail.raw);
    expect(decoded(mail.raw)).toContain('The link works once, for 24 hours');

    // Unconfirmed, nothing changes: a scanner's GET shows the button and confirms nothing.
    const page = await world.http.get(`/privacy/objections/confirm?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.text).toContain('<form method="post"');
    expect((await objectionOf('email', email))[0]!.status).toBe('pending');
    expect((await jobLeads(buyers[0]!)).some((l) => l.email?.toLowerCase() === email)).toBe(true);

    if (haveBrowser('objection confirmation page')) {
      const browser = await launchBrowser();
      try {
        const tab = await browser.newPage();
        const outside: string[] = [];
        tab.on('request', (request) => {
          if (!request.url().startsWith(base())) outside.push(request.url());
        });
        await tab.goto(`${base()}/privacy/objections/confirm?token=${token}`);
        expect(await tab.textContent('h1')).toBe('Confirm your objection');
        await Promise.all([tab.waitForNavigation(), tab.click('button[type=submit]')]);
        expect(await tab.textContent('h1')).toBe('Your objection is confirmed');
        expect(outside).toEqual([]);
      } finally {
        await browser.close();
      }
    } else {
      const confirmed = await world.http.post('/privacy/objections/confirm').type('form').send({ token });
      expect(confirmed.status).toBe(200);
    }

    // Single use: the same link again confirms nothing.
    const again = await world.http.post('/privacy/objections/confirm').type('form').send({ token });
    expect(again.status).toBe(404);
    expect(again.text).toContain('This link cannot be used');

    // Within a minute, each buyer gets one signed subject.objected with only what it held, and the same in its feed.
    for (const buyer of buyers) {
      const [delivery] = await receiver.waitFor(1, (r) => r.path === buyer.path && JSON.parse(r.body).type === 'subject.objected', 60_000);
      const event = verified(buyer.secret, delivery!);
      expect(event.data).toMatchObject({
        subject: { kind: 'email', value: email },
        identifiers: { emails: [email], phones: [], domains: [] },
        jobIds: [buyer.jobId],
      });
      const feed = await world.http.get('/api/v1/privacy/objections').set(buyer.account.auth);
      expect(feed.status).toBe(200);
      expect(feed.body.items[0]).toEqual(event.data);
    }
    expect(Date.now() - before).toBeLessThan(60_000);

    // The stored copies are gone, and a new job of the same request does not deliver the person.
    for (const buyer of buyers) expect((await jobLeads(buyer)).some((l) => l.email?.toLowerCase() === email)).toBe(false);
    const later = await generate(world, buyers[0]!.account, REQUEST, { Prefer: 'wait=30' });
    expect(later.status).toBe(200);
    expect((later.body.leads as Lead[]).length).toBeGreaterThan(0);
    expect((later.body.leads as Lead[]).some((l) => l.email?.toLowerCase() === email)).toBe(false);
    // The notices go out before the copies are erased and the objection is marked applied (objection-sweep.ts).
    const applied = (
      await until(
        'the objection applied',
        () => objectionOf('email', email),
        ([objection]) => objection?.status === 'applied',
        10_000,
      )
    )[0]!;
    // At least our two buyers: the test database also holds other files' (and earlier runs') accounts that bought the same sandbox leads.
    expect(applied).toMatchObject({ status: 'applied', confirmedBy: 'email_link' });
    expect(applied.accountsNoticed).toBeGreaterThanOrEqual(2);
    expect(applied.leadsErased).toBeGreaterThanOrEqual(2);
    // Applied once: a second sweep tells nobody twice.
    await new Promise((r) => setTimeout(r, 6_000));
    for (const buyer of buyers) expect(noticesOf(buyer)).toHaveLength(1);
  }, 120_000);

  it('when one address is asked for six times, then one mail goes out, every answer is the same as for an address nobody holds, and no ask is refused', async () => {
    const held = subjects.unconfirmed;
    const nobody = 'nobody.at.all@unknown-business.example';
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await object({ email: held }));
    const stranger = await object({ email: nobody });
    for (const answer of answers) {
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual(stranger.body);
    }
    await until(
      'the mails',
      async () => smtp.mails.filter((m) => m.to.includes(held) || m.to.includes(nobody)),
      (m) => m.length >= 2,
      10_000,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(smtp.mails.filter((m) => m.to.includes(held))).toHaveLength(1);
    // No window counts the subject (a stranger's asks must not keep its owner out): the sixth is answered alike,
    // and still no second mail goes out.
    const sixth = await object({ email: held });
    expect(sixth.status).toBe(202);
    expect(sixth.body).toEqual(stranger.body);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.mails.filter((m) => m.to.includes(held))).toHaveLength(1);
    // One row per mail sent: the five asks that sent none left nothing behind.
    expect(await objectionOf('email', held)).toHaveLength(1);
  });

  it('when strangers ask for a domain and a phone from many networks, then each has one pending objection, and its owner gets it too and can prove it', async () => {
    const domain = 'owned-by-someone.test';
    const phone = '+49 30 9999 0042';
    const strangers = [];
    for (let i = 0; i < 7; i++) strangers.push(await object({ domain }), await object({ phone }));
    expect(strangers.map((a) => a.status)).toEqual(Array(14).fill(202));
    const owner = await object({ domain });
    expect(owner.status).toBe(202);
    const first = strangers[0]!.body;
    // the same objection, token and expiry, whoever asks: the owner can still publish the token and prove control
    expect(owner.body).toEqual(first);
    expect(new Set(strangers.filter((_, i) => i % 2 === 1).map((a) => a.body.objectionId)).size).toBe(1);
    expect(await objectionOf('domain', domain)).toHaveLength(1);
    expect(await objectionOf('phone', '+493099990042')).toHaveLength(1);
    dns.zones[owner.body.proof.dnsTxt.name] = { txt: owner.body.proof.dnsTxt.value };
    const proven = await world.http.post(`/api/v1/privacy/objections/${owner.body.objectionId}/verify`).set('X-Forwarded-For', from());
    expect(proven.status).toBe(200);
    expect(proven.body).toMatchObject({ kind: 'domain', status: 'confirmed', proof: 'dns_txt' });
  });

  it('when a domain publishes its token in DNS, then it is proven; before that the check refuses, and a token on its website proves another', async () => {
    const domain = subjects.domain;
    const asked = await object({ domain: `https://www.${domain}/contact` });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ kind: 'domain', status: 'pending', proof: { dnsTxt: { name: `_leadgen-objection.${domain}` } } });
    const id = asked.body.objectionId as string;

    const early = await world.http.post(`/api/v1/privacy/objections/${id}/verify`).set('X-Forwarded-For', from());
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('objection_not_proven');
    expect((await findObjection(world.db, id))!.status).toBe('pending');

    dns.zones[asked.body.proof.dnsTxt.name] = { txt: asked.body.proof.dnsTxt.value };
    const proven = await world.http.post(`/api/v1/privacy/objections/${id}/verify`).set('X-Forwarded-For', from());
    expect(proven.status).toBe(200);
    expect(proven.body).toEqual({ objectionId: id, kind: 'domain', status: 'confirmed', proof: 'dns_txt' });

    for (const buyer of buyers) {
      const [delivery] = await receiver.waitFor(
        1,
        (r) => r.path === buyer.path && JSON.parse(r.body).type === 'subject.objected' && JSON.parse(r.body).data.objectionId === id,
        60_000,
      );
      const event = verified(buyer.secret, delivery!);
      expect((event.data.identifiers as { domains: string[] }).domains).toEqual([domain]);
      expect((await jobLeads(buyer)).some((l) => l.website?.includes(domain))).toBe(false);
    }

    // Another domain, nobody's customer, proves it with the file on its website (resolved by the configured DNS).
    const other = 'objecting-site.test';
    dns.zones[other] = { a: ['127.0.0.1'] };
    const second = await object({ domain: other });
    expect(second.status).toBe(202);
    files.set(`${other}/.well-known/leadgen-objection.txt`, `${second.body.proof.wellKnown.content}\n`);
    const byFile = await world.http.post(`/api/v1/privacy/objections/${second.body.objectionId}/verify`).set('X-Forwarded-For', from());
    expect(byFile.status).toBe(200);
    expect(byFile.body.proof).toBe('well_known');
    await until(
      'the second domain applied',
      () => findObjection(world.db, second.body.objectionId as string),
      (o) => o?.status === 'applied',
      60_000,
    );
    expect((await findObjection(world.db, second.body.objectionId as string))!.accountsNoticed).toBe(0);
  }, 120_000);

  it('when a phone objects, then it waits for the operator, whose objection:confirm applies it', async () => {
    const phone = subjects.phone;
    const asked = await object({ phone });
    expect(asked.status).toBe(202);
    const id = asked.body.objectionId as string;
    await new Promise((r) => setTimeout(r, 6_000));
    expect((await findObjection(world.db, id))!.status).toBe('pending');
    const pending = await admin(world, 'objection:list', '--status', 'pending');
    expect((pending.rows as Array<{ id: string }>).find((r) => r.id === id)).toMatchObject({
      kind: 'phone',
      status: 'pending',
      proof: null,
    });

    const confirmed = await admin(world, 'objection:confirm', '--id', id);
    expect(confirmed).toMatchObject({ objectionId: id, kind: 'phone', status: 'confirmed' });
    await expect(admin(world, 'objection:confirm', '--id', id)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('no pending objection'),
    });
    const applied = await until(
      'the phone applied',
      () => findObjection(world.db, id),
      (o) => o?.status === 'applied',
      60_000,
    );
    expect(applied!.accountsNoticed).toBeGreaterThanOrEqual(2);
    for (const buyer of buyers) {
      const feed = await world.http.get('/api/v1/privacy/objections?limit=1').set(buyer.account.auth);
      expect(feed.body.items[0]).toMatchObject({ objectionId: id, subject: { kind: 'phone' } });
      expect(feed.body.nextCursor).toEqual(expect.any(String));
      const next = await world.http.get(`/api/v1/privacy/objections?limit=1&cursor=${feed.body.nextCursor}`).set(buyer.account.auth);
      expect(next.status).toBe(200);
      expect(next.body.items[0].objectionId).not.toBe(id);
    }
    const trail = await listAuditEvents(world.db, null, { action: 'objection.confirmed' }, null, 100);
    expect(trail.find((e) => e.summary.objectionId === id)).toMatchObject({
      actor: 'operator',
      accountId: null,
      summary: { kind: 'phone' },
    });
  }, 90_000);

  it('when one network sends more than ten requests in an hour, then the eleventh is refused', async () => {
    const address = from();
    for (let i = 0; i < 10; i++) expect((await object({ domain: `flood-${i}.example` }, address)).status).toBe(202);
    const refused = await object({ domain: 'flood-10.example' }, address);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
  });

  it('when the body is not one valid subject, then every problem is a 400 and nothing is recorded', async () => {
    const count = (await listObjections(world.db, { limit: 1000 })).length;
    for (const body of [
      {},
      { email: 'a@b.example', phone: '+15125550100' },
      { email: 'not an address' },
      { phone: '5550100' },
      { name: 'x' },
    ]) {
      const res = await object(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const plain = await world.http.post('/api/v1/privacy/objections').set('Content-Type', 'text/plain').send('a@b.example');
    expect(plain.status).toBe(415);
    expect(await world.http.get('/privacy/objections/confirm?token=nope').then((r) => r.status)).toBe(404);
    expect((await world.http.post('/api/v1/privacy/objections/obj_x/verify')).status).toBe(404);
    expect((await world.http.get('/api/v1/privacy/objections')).status).toBe(401);
    expect((await listObjections(world.db, { limit: 1000 })).length).toBe(count);
  });
});
