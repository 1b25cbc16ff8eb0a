import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseAllDocuments } from 'yaml';
import { CONFIG_VARIABLES, DEFAULT_OPS_PORTS, loadConfig } from '@leadgen/config';
import { SOURCES } from '@leadgen/domain';
import { OPS_PATHS } from '@leadgen/ops';
import { QUEUE_NAMES, redisKeys, topologyOf, WEBHOOK_QUEUE_NAME } from '@leadgen/queue';

// deploy/kubernetes rendered as kustomize would (the few features it uses), then checked against
// the code: the variables the manifests set, the ports and paths the probes hit, the Redis keys
// KEDA watches.
const ROOT = path.resolve(__dirname, '..');
const OVERLAY = path.join(ROOT, 'deploy/kubernetes/overlays/example');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
interface Kustomization {
  namespace?: string;
  resources?: string[];
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
  patches?: Array<{ target: { kind: string; name: string }; patch: string }>;
}
interface Generator {
  name: string;
  behavior?: 'create' | 'merge';
  literals?: string[];
  envs?: string[];
}

function readYaml(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);
}

/** KEY=value lines; a secret's file is not in git, so its .example stands in. */
function envFile(file: string): Record<string, string> {
  const source = existsSync(file) ? file : `${file}.example`;
  const entries = readFileSync(source, 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

function generate(dir: string, docs: Doc[], kind: 'ConfigMap' | 'Secret', generators: Generator[] = []): void {
  for (const generator of generators) {
    const data: Record<string, string> = {};
    for (const literal of generator.literals ?? []) data[literal.slice(0, literal.indexOf('='))] = literal.slice(literal.indexOf('=') + 1);
    for (const env of generator.envs ?? []) Object.assign(data, envFile(path.join(dir, env)));
    const existing = docs.find((d) => d.kind === kind && d.metadata.name === generator.name);
    if (generator.behavior === 'merge') {
      if (!existing) throw new Error(`merge into a missing ${kind} ${generator.name}`);
      Object.assign(existing.data, data);
    } else {
      docs.push({ apiVersion: 'v1', kind, metadata: { name: generator.name }, data });
    }
  }
}

type PatchOperation = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown };

/** JSON 6902, the operations the overlay uses. */
function applyPatch(doc: Doc, ops: PatchOperation[]): void {
  for (const { op, path: pointer, value } of ops) {
    const keys = pointer.split('/').slice(1);
    const last = keys.pop()!;
    const parent = keys.reduce((node, key) => node[key], doc);
    if (op === 'remove') delete parent[last];
    else parent[last] = value;
  }
}

function render(dir: string): Doc[] {
  const k = readYaml(path.join(dir, 'kustomization.yaml'))[0] as Kustomization;
  const docs: Doc[] = [];
  for (const resource of k.resources ?? []) {
    const target = path.join(dir, resource);
    docs.push(...(statSync(target).isDirectory() ? render(target) : readYaml(target)));
  }
  generate(dir, docs, 'ConfigMap', k.configMapGenerator);
  generate(dir, docs, 'Secret', k.secretGenerator);
  for (const { target, patch } of k.patches ?? []) {
    const doc = docs.find((d) => d.kind === target.kind && d.metadata.name === target.name);
    if (!doc) throw new Error(`patch target ${target.kind}/${target.name} not found`);
    applyPatch(doc, parseAllDocuments(patch)[0]!.toJS() as PatchOperation[]);
  }
  for (const doc of docs) {
    if (k.namespace && doc.kind !== 'Namespace') doc.metadata.namespace = k.namespace;
    for (const container of [...(doc.spec?.template?.spec?.containers ?? [])]) {
      const image = k.images?.find((i) => i.name === container.image.split(':')[0]);
      if (image) container.image = `${image.newName ?? image.name}:${image.newTag ?? 'latest'}`;
    }
  }
  return docs;
}

const docs = render(OVERLAY);
const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
const deployments = byKind('Deployment');
const podSpecs = [...deployments, ...byKind('Job')].map((d) => ({ name: d.metadata.name as string, spec: d.spec.template.spec as Doc }));

/** The environment a container gets: its envFrom sources, then its env (which wins, as in Kubernetes). */
function environmentOf(container: Doc): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const source = docs.find((d) => d.kind === (from.configMapRef ? 'ConfigMap' : 'Secret') && d.metadata.name === ref.name);
    if (!source) throw new Error(`${ref.name} is not rendered`);
    Object.assign(environment, source.data);
  }
  for (const { name, value } of container.env ?? []) environment[name] = value;
  return environment;
}

const processOf = (container: Doc) => container.args[0] as 'api' | 'worker' | 'migrate';

describe('deploy/kubernetes (example overlay)', () => {
  it('when rendered, then the API, one worker per source, the migrations Job, budgets and scalers are there', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'leadgen-api',
      'leadgen-webhooks',
      'leadgen-worker-google-maps',
      'leadgen-worker-linkedin',
      'leadgen-worker-shopify',
    ]);
    expect(byKind('Service').map((d) => d.metadata.name)).toEqual(['leadgen-api']);
    expect(byKind('Job').map((d) => d.metadata.name)).toEqual(['leadgen-migrate']);
    expect(byKind('PodDisruptionBudget')).toHaveLength(5);
    expect(byKind('ScaledObject')).toHaveLength(4);
    expect(docs.every((d) => d.kind === 'Namespace' || d.metadata.namespace === 'leadgen')).toBe(true);
    expect(deployments.find((d) => d.metadata.name === 'leadgen-api')!.spec.replicas).toBe(3);
    for (const { spec } of podSpecs) expect(spec.containers[0].image).toBe('registry.example.com/leadgen:0.1.0');
  });

  it('when every container environment is read, then each variable is one the configuration schema knows, and valid', () => {
    for (const { name, spec } of podSpecs) {
      for (const container of spec.containers) {
        const environment = environmentOf(container);
        expect({ name, unknown: Object.keys(environment).filter((v) => !CONFIG_VARIABLES.includes(v)) }).toEqual({ name, unknown: [] });
        expect(() => loadConfig(environment)).not.toThrow();
      }
    }
  });

  it('when the probes are read, then they hit the paths and ports each process serves', () => {
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const config = loadConfig(environmentOf(container));
      const process = processOf(container);
      expect(['api', 'worker']).toContain(process);
      const opsPort = config.ops.port ?? DEFAULT_OPS_PORTS[process as 'api' | 'worker'];
      const portNumber = (port: string | number) =>
        typeof port === 'number' ? port : container.ports.find((p: Doc) => p.name === port)?.containerPort;
      expect(portNumber('ops')).toBe(opsPort);
      expect(config.ops.host).toBe('127.0.0.1'); // the image's OPS_HOST=0.0.0.0 applies: the manifests leave it alone
      for (const [probe, expectedPath] of [
        ['startupProbe', OPS_PATHS.health],
        ['livenessProbe', OPS_PATHS.health],
        ['readinessProbe', OPS_PATHS.ready],
      ] as const) {
        const get = container[probe]?.httpGet;
        expect({ deployment: deployment.metadata.name, probe, path: get?.path, port: portNumber(get?.port) }).toEqual({
          deployment: deployment.metadata.name,
          probe,
          path: expectedPath,
          port: opsPort,
        });
      }
      if (process === 'api') expect(portNumber('http')).toBe(config.http.port);
    }
    const api = deployments.find((d) => d.metadata.name === 'leadgen-api')!.spec.template;
    const service = byKind('Service')[0]!;
    expect(service.spec.selector).toEqual(api.metadata.labels);
    for (const port of service.spec.ports) expect(api.spec.containers[0].ports.map((p: Doc) => p.name)).toContain(port.targetPort);
  });

  it('when a pod is stopped, then its grace period outlasts SHUTDOWN_GRACE_MS and any preStop pause', () => {
    for (const deployment of deployments) {
      const spec = deployment.spec.template.spec;
      const container = spec.containers[0];
      const pause = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      const grace = loadConfig(environmentOf(container)).shutdownGraceMs;
      expect(spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace + pause * 1000 + 5_000);
      expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    }
  });

  it('when the workers are read, then each source has exactly one Deployment serving only it, with a budget', () => {
    const workers = deployments.filter((d) => d.metadata.name.startsWith('leadgen-worker-'));
    const served = workers.map((d) => loadConfig(environmentOf(d.spec.template.spec.containers[0])).worker.sources);
    expect(served.map((s) => s.length)).toEqual(workers.map(() => 1));
    expect(served.flat().sort()).toEqual([...SOURCES].sort());
    for (const deployment of [...workers, deployments.find((d) => d.metadata.name === 'leadgen-api')!]) {
      const budget = byKind('PodDisruptionBudget').find((p) => p.metadata.name === deployment.metadata.name);
      expect(budget?.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    }
  });

  it('when the webhook worker is read, then it alone delivers webhooks, serves no source, and has a budget and a scaler on its queue', () => {
    const deliverers = deployments.filter(
      (d) =>
        processOf(d.spec.template.spec.containers[0]) === 'worker' &&
        loadConfig(environmentOf(d.spec.template.spec.containers[0])).webhooks.deliver,
    );
    expect(deliverers.map((d) => d.metadata.name)).toEqual(['leadgen-webhooks']);
    const config = loadConfig(environmentOf(deliverers[0]!.spec.template.spec.containers[0]));
    expect(config.worker.sources).toEqual([]);
    expect(byKind('PodDisruptionBudget').find((p) => p.metadata.name === 'leadgen-webhooks')?.spec.selector.matchLabels).toEqual(
      deliverers[0]!.spec.selector.matchLabels,
    );
    const scaler = byKind('ScaledObject').find((s) => s.spec.scaleTargetRef.name === 'leadgen-webhooks');
    expect(scaler!.spec.triggers.map((t: Doc) => t.metadata.listName)).toEqual([
      `${config.redis.queuePrefix}:${WEBHOOK_QUEUE_NAME}:wait`,
      `${config.redis.queuePrefix}:${WEBHOOK_QUEUE_NAME}:active`,
    ]);
  });

  describe('KEDA', () => {
    let redis: Redis;
    beforeAll(() => {
      redis = new Redis(loadConfig().redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    });
    afterAll(() => redis.quit());

    it("when each worker's ScaledObject is read, then it watches its own queue's wait list under the configured prefix", async () => {
      for (const deployment of deployments.filter((d) => d.metadata.name.startsWith('leadgen-worker-'))) {
        const container = deployment.spec.template.spec.containers[0];
        const config = loadConfig(environmentOf(container));
        const source = config.worker.sources[0]!;
        const scaler = byKind('ScaledObject').find((s) => s.spec.scaleTargetRef.name === deployment.metadata.name);
        expect(scaler).toBeDefined();
        // The key as BullMQ itself names it for this queue and prefix (no job is added under it).
        const queue = new Queue(QUEUE_NAMES[source], { prefix: config.redis.queuePrefix, connection: redis });
        const listNames = scaler!.spec.triggers.map((t: Doc) => (t.type === 'redis' ? t.metadata.listName : null));
        expect(listNames).toEqual([queue.keys.wait, queue.keys.active]);
        expect(queue.keys.wait).toBe(`${config.redis.queuePrefix}:${QUEUE_NAMES[source]}:wait`);
        await queue.close();
        for (const trigger of scaler!.spec.triggers)
          expect(trigger.authenticationRef.name).toBe(byKind('TriggerAuthentication')[0]!.metadata.name);
      }
    });

    it('when a job waits in a real queue, then it is in that list, which KEDA measures with LLEN', async () => {
      const prefix = `lgtest-keda-${randomBytes(4).toString('hex')}`;
      const queue = new Queue(QUEUE_NAMES.shopify, { prefix, connection: redis });
      try {
        await queue.add('shopify', { jobId: 'job_keda', accountId: 'acc_keda', source: 'shopify' });
        const key = `${prefix}:${QUEUE_NAMES.shopify}:wait`;
        expect(await redis.type(key)).toBe('list');
        expect(await redis.llen(key)).toBe(1);
      } finally {
        await queue.obliterate({ force: true });
        await queue.close();
      }
    });
  });
});

describe.each([
  ['redis-cluster', 'cluster'],
  ['redis-sentinel', 'sentinel'],
] as const)('the %s overlay', (overlay, topology) => {
  const rendered = render(path.join(ROOT, 'deploy/kubernetes/overlays', overlay));
  const scalers = rendered.filter((d) => d.kind === 'ScaledObject');
  const workers = rendered.filter((d) => d.kind === 'Deployment' && processOf(d.spec.template.spec.containers[0]) === 'worker');
  const environment = (container: Doc) => {
    const env: Record<string, string> = {};
    for (const from of container.envFrom ?? [])
      Object.assign(env, rendered.find((d) => d.metadata.name === (from.configMapRef ?? from.secretRef).name)?.data);
    for (const { name, value } of container.env ?? []) env[name] = value;
    return env;
  };

  it(`when its workers are read, then they reach Redis through ${topology}, and each scaler watches its queue's own lists with a ${overlay} trigger`, () => {
    expect(workers.length).toBe(SOURCES.length + 1);
    for (const worker of workers) {
      const config = loadConfig(environment(worker.spec.template.spec.containers[0]));
      expect(topologyOf(config.redis)).toBe(topology);
      const queue = config.webhooks.deliver ? WEBHOOK_QUEUE_NAME : QUEUE_NAMES[config.worker.sources[0]!];
      const prefix = redisKeys(config.redis).queuePrefix(queue);
      const scaler = scalers.find((s) => s.spec.scaleTargetRef.name === worker.metadata.name)!;
      expect(scaler.spec.triggers.map((t: Doc) => [t.type, t.metadata.listName])).toEqual([
        [overlay, `${prefix}:${queue}:wait`],
        [overlay, `${prefix}:${queue}:active`],
      ]);
      if (topology === 'sentinel') for (const t of scaler.spec.triggers) expect(t.metadata.sentinelMaster).toBe(config.redis.sentinelName);
    }
    const auth = rendered.find((d) => d.kind === 'TriggerAuthentication')!;
    expect(auth.spec.secretTargetRef.map((r: Doc) => r.parameter)).toContain('addresses');
  });
});
