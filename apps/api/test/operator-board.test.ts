import { randomBytes } from 'node:crypto';
import { confirmObjection, insertObjection, markObjectionApplied } from '@leadgen/db';
import { subjectDigest } from '@leadgen/domain';
import { startWorld, type TestWorld } from '../../../test/harness';

describe('Bull Board for operators', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: 'correct horse battery' } });
  });
  afterAll(() => world.close());

  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('when no operator login is given, then 401 with a Basic challenge', async () => {
    const res = await world.http.get('/admin/queues');
    expect(res.status).toBe(401);
    expect(res.get('WWW-Authenticate')).toMatch(/^Basic /);
  });

  it('when the password is wrong, then 401', async () => {
    const res = await world.http.get('/admin/queues').set('Authorization', basic('operator', 'wrong'));
    expect(res.status).toBe(401);
  });

  it('when the operator logs in, then the board and its queue API answer, listing one queue per source', async () => {
    const auth = basic('operator', 'correct horse battery');
    const page = await world.http.get('/admin/queues').set('Authorization', auth);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    // the page links nothing from another origin (Bull Board ships a Google Fonts link)
    expect(page.text).not.toMatch(/https:\/\/fonts\./);
    const queues = await world.http.get('/admin/queues/api/queues').set('Authorization', auth);
    expect(queues.status).toBe(200);
    expect((queues.body.queues as Array<{ name: string }>).map((q) => q.name).sort()).toEqual([
      'google_maps',
      'linkedin',
      'monitors',
      'shopify',
      'webhooks',
    ]);
  });

  it('when anything on the board answers (page, its API, a static file, a challenge, an unknown path), then Cache-Control: no-store', async () => {
    const auth = basic('operator', 'correct horse battery');
    const answers = [
      await world.http.get('/admin/queues').set('Authorization', auth),
      await world.http.get('/admin/queues/api/queues').set('Authorization', auth),
      await world.http.get('/admin/queues/static/favicon.ico').set('Authorization', auth),
      await world.http.get('/admin/queues/api/nothing-here').set('Authorization', auth),
      await world.http.get('/admin/queues'),
    ];
    expect(answers.map((res) => [res.status, res.get('Cache-Control')])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [answers[3]!.status, 'no-store'],
      [401, 'no-store'],
    ]);
  });
});

describe('the objections page of the operator board (decision 042)', () => {
  let world: TestWorld;
  const auth = `Basic ${Buffer.from('operator:correct horse battery').toString('base64')}`;
  // values no other test uses, and rows removed afterwards: a worker of another file would apply a confirmed one
  const tag = randomBytes(4).toString('hex');
  const subjects = [
    { id: `obj_board${tag}1`, kind: 'email' as const, value: `maria.${tag}@praxis-board.example` },
    { id: `obj_board${tag}2`, kind: 'domain' as const, value: `board-${tag}.example` },
    { id: `obj_board${tag}3`, kind: 'phone' as const, value: '+4930123456' + tag.replace(/\D/g, '0').slice(0, 2) },
  ];
  beforeAll(async () => {
    world = await startWorld({ worker: false, env: { OPERATOR_PASSWORD: 'correct horse battery' } });
    for (const s of subjects)
      await insertObjection(world.db, { ...s, tokenHash: null, proofToken: null, expiresAt: new Date(Date.now() + 3_600_000) });
    // one pending (the phone), one confirmed (the domain), one applied (the email)
    await confirmObjection(world.db, subjects[1]!.id, 'dns_txt');
    await confirmObjection(world.db, subjects[0]!.id, 'email_link');
    await markObjectionApplied(world.db, subjects[0]!.id, { leadsErased: 3, accountsNoticed: 2 });
  });
  afterAll(async () => {
    await world.db.sql.query('DELETE FROM objections WHERE id = ANY($1)', [subjects.map((s) => s.id)]);
    await world.close();
  });

  it('when the operator opens it, then pending, confirmed and applied objections are listed, each subject masked and by its digest, never in clear', async () => {
    const page = await world.http.get('/admin/queues/objections').set('Authorization', auth);
    expect(page.status).toBe(200);
    expect(page.get('Content-Type')).toMatch(/^text\/html/);
    expect(page.get('Cache-Control')).toBe('no-store');
    expect(page.get('Content-Security-Policy')).toContain("default-src 'self'");
    const rowOf = (id: string) => new RegExp(`<tr><td>${id}</td>.*?</tr>`).exec(page.text)?.[0] ?? '';
    const [email, domain, phone] = subjects;
    expect(rowOf(email!.id)).toContain(
      `<td>m***@p***.example</td><td><code>${subjectDigest(email!.value)}</code></td><td>applied</td><td>email_link</td>`,
    );
    expect(rowOf(email!.id)).toMatch(/<td>3<\/td><td>2<\/td><\/tr>$/);
    expect(rowOf(domain!.id)).toContain(
      `<td>b***.example</td><td><code>${subjectDigest(domain!.value)}</code></td><td>confirmed</td><td>dns_txt</td>`,
    );
    expect(rowOf(phone!.id)).toContain(`<td>+${'*'.repeat(phone!.value.length - 3)}${phone!.value.slice(-2)}</td>`);
    expect(rowOf(phone!.id)).toContain('<td>pending</td>');
    for (const s of subjects) expect(page.text).not.toContain(s.value);
    expect(page.text).not.toContain(`maria.${tag}`);
    expect(page.text).not.toContain(`board-${tag}`);
  });

  it('when a status is asked, then only those; without the login, 401', async () => {
    const pending = await world.http.get('/admin/queues/objections?status=pending').set('Authorization', auth);
    expect(pending.status).toBe(200);
    expect(pending.text).toContain(subjects[2]!.id);
    expect(pending.text).not.toContain(subjects[0]!.id);
    expect(pending.text).not.toContain(subjects[1]!.id);
    expect((await world.http.get('/admin/queues/objections')).status).toBe(401);
  });
});

describe('without OPERATOR_PASSWORD', () => {
  it('when /admin/queues is asked for, then it does not exist', async () => {
    const world = await startWorld({ worker: false });
    try {
      const res = await world.http.get('/admin/queues');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    } finally {
      await world.close();
    }
  });
});
