import { STORELEADS_CATEGORY_PATHS } from '@leadgen/domain';
import { startWorld, type TestWorld } from '../../../test/harness';

let world: TestWorld;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.close());

describe('GET /api/v1/meta/shopify-categories', () => {
  it('when the Store Leads categories are asked for, without a key, then every path with its name, label and spelling doubts', async () => {
    const res = await world.http.get('/api/v1/meta/shopify-categories');
    expect(res.status).toBe(200);
    expect(res.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.body.retrieved).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.body.categories.map((c: { path: string }) => c.path)).toEqual(STORELEADS_CATEGORY_PATHS);
    expect(res.body.categories).toContainEqual({
      path: '/Home & Garden/Kitchen & Dining',
      name: 'Kitchen & Dining',
      label: 'Home & Garden > Kitchen & Dining',
      confirmed: true,
      alsoSpelled: [],
    });
    expect(res.body.categories).toContainEqual({
      path: '/Toys & Hobbies',
      name: 'Toys & Hobbies',
      label: 'Toys & Hobbies',
      confirmed: false,
      alsoSpelled: ['/Toys'],
    });
  });

  it('when another method is used, then 405 naming GET', async () => {
    const res = await world.http.post('/api/v1/meta/shopify-categories').send({});
    expect(res.status).toBe(405);
    expect(res.get('Allow')).toBe('GET');
  });
});
