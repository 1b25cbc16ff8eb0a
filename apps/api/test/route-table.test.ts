import { openApiDocument } from '../src/openapi/openapi-document';
import { ENDPOINTS } from '../src/routes/endpoints';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';

// One declaration per endpoint (routes/endpoints.ts): what the service mounts and what its document says
// are the same list. Each documented path answers a method it lacks with 405 and an Allow of exactly its
// documented methods, and each declared endpoint is in the document once.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Parameter = { name: string; in: string; example?: string };
// A value of the right shape for each path parameter, so the request reaches the route.
const SAMPLE: Record<string, string> = {
  jobId: 'job_0123456789abcdefghijklmn',
  resultSetId: 'rs_0123456789abcdefghijklmn',
  batchId: 'bat_0123456789abcdefghijklmn',
  id: 'whep_0123456789abcdef01234567',
  deliveryId: 'msg_0123456789abcdefghijklmn',
};

describe('the route table', () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when the document is read, then it has exactly one operation per declared endpoint, each with its rate-limit window', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ENDPOINTS.map((e) => `${e.method.toUpperCase()} ${e.path}`).sort());
    for (const endpoint of ENDPOINTS) {
      const operation = doc.paths[endpoint.path]![endpoint.method] as Record<string, unknown>;
      expect([endpoint.path, operation['x-rate-limit'] === undefined]).toEqual([endpoint.path, endpoint.rateLimit === undefined]);
    }
  });

  it('when any documented path is sent a method it lacks, then 405 with Allow listing exactly its documented methods', async () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const allowed = METHODS.filter((m) => item[m]);
      const missing = METHODS.find((m) => !item[m])!;
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE[name] ?? 'x');
      const res = await world.http[missing](url);
      const allow = allowed.map((m) => m.toUpperCase()).join(', ');
      if (res.status !== 405 || res.get('Allow') !== allow) wrong.push(`${missing} ${url}: ${res.status} Allow ${res.get('Allow')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('when a documented query is sent a parameter the document does not list, then 400 naming it: the document and the validation are one list', async () => {
    const { auth } = await buildAccount(world.db);
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const operation = item.get as { parameters?: Parameter[] } | undefined;
      const listed = (operation?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      if (listed.length === 0) continue;
      const ids = (item.parameters ?? []) as Parameter[];
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => ids.find((p) => p.name === name)?.example ?? 'x');
      const res = await world.http.get(`${url}?notListed=1`).set(auth);
      expect([url, res.status, res.body.errors?.map((e: { pointer: string }) => e.pointer)]).toEqual([url, 400, ['#/notListed']]);
      checked.push(url);
    }
    expect(checked.length).toBeGreaterThan(15);
  });

  it('when an objection names two subjects or none, then 400 before anything is done, as the derived ObjectionRequest (oneOf) says', async () => {
    for (const body of [
      { email: 'a@example.com', domain: 'example.com' },
      {},
      { email: 'a@example.com', domain: 'example.com', phone: '+15125550100' },
    ]) {
      const res = await world.http.post('/api/v1/privacy/objections').send(body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'validation_failed']);
    }
  });
});
