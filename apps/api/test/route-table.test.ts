import { openApiDocument } from '../src/openapi/openapi-document';
import { ENDPOINTS } from '../src/routes/endpoints';
import { startWorld, type TestWorld } from '../../../test/harness';

// One declaration per endpoint (routes/endpoints.ts): what the service mounts and what its document says
// are the same list. Each documented path answers a method it lacks with 405 and an Allow of exactly its
// documented methods, and each declared endpoint is in the document once.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
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
});
