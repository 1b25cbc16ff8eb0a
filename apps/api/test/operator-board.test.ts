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
