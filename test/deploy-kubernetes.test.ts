import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CONFIG_VARIABLES, DEFAULT_OPS_PORTS, loadConfig, PUBLISHED_EXAMPLE_SECRETS, secretVariablesOf, VARIABLES } from '@leadgen/config';
import { SOURCES } from '@leadgen/domain';
import { OPS_PATHS } from '@leadgen/ops';
import { QUEUE_NAMES, redisKeys, RedisKeys, shardQueueName, topologyOf, WEBHOOK_QUEUE_NAME } from '@leadgen/queue';
import { baseWorkloads, KUBERNETES_BASE, processOfContainer, renderSecretEnvFile, SECRET_ENV_FILE } from '../scripts/kubernetes-env';
import { kedaRedisFiles, readEnvFile, writeKedaRedisFiles } from '../scripts/keda-redis';
import { hasKubectl, KUBERNETES, renderOverlay, type K8sObject } from './kustomize';
import { queueShardsKustomization, writeQueueShardsOverlay } from '../scripts/queue-shards-overlay';

// deploy/kubernetes rendered by the real kustomize (test/kustomize.ts), then checked against the code:
// the variables each pod gets (and only those its process reads), the ports and paths the probes hit,
// who the NetworkPolicies let in and out, what the scraper finds, the Redis keys KEDA watches.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
const describeRendered = hasKubectl || process.env.CI ? describe : describe.skip;

// The machines (CI's too) have kubectl; one without it cannot render, and says so (CI fails instead).
const docs = hasKubectl || process.env.CI ? renderOverlay('example') : [];
const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
/** The fleet's own objects (`app.kubernetes.io/name: leadgen`), not PgBouncer's (components/pgbouncer, deploy-pgbouncer.test.ts). */
const isLeadgen = (d: Doc) => d.metadata.labels?.['app.kubernetes.io/name'] === 'leadgen';
const deployments = byKind('Deployment').filter(isLeadgen);
const podSpecs = [...deployments, ...byKind('Job')].map((d) => ({ name: d.metadata.name as string, spec: d.spec.template.spec as Doc }));

/**
 * The environment a container gets in a render: its envFrom sources, then its env (which wins, as in
 * Kubernetes), a `secretKeyRef` read from the Secret (decoded; an optional key the Secret lacks is unset).
 */
function environmentIn(rendered: Doc[], container: Doc): Record<string, string> {
  const environment: Record<string, string> = {};
  const find = (kind: string, name: string) => {
    const source = rendered.find((d) => d.kind === kind && d.metadata.name === name);
    if (!source) throw new Error(`${kind} ${name} is not rendered`);
    return source;
  };
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) throw new Error(`a container takes the whole Secret ${from.secretRef.name}`);
    Object.assign(environment, find('ConfigMap', from.configMapRef.name).data);
  }
  for (const { name, value, valueFrom } of container.env ?? []) {
    const ref = valueFrom?.secretKeyRef;
    if (!ref) environment[name] = value;
    else {
      const encoded = find('Secret', ref.name).data?.[ref.key];
      if (encoded === undefined && !ref.optional) throw new Error(`Secret ${ref.name} lacks ${ref.key}`);
      if (encoded !== undefined) environment[name] = ownSecret(Buffer.from(encoded, 'base64').toString('utf8'));
    }
  }
  return environment;
}

// The example overlay's Secrets hold values this repository publishes, which production refuses (decision 031);
// a deployment's own overlay (production-overlay) replaces them. The pods are read as they run there: each
// published value (whole, one of a list, a URL's password) swapped for one of the operator's own.
const OWN_SECRETS = new Map([...PUBLISHED_EXAMPLE_SECRETS].map((published) => [published, operatorsOwn(published)]));
function operatorsOwn(published: string): string {
  // A key keeps its form (base64 of 32 bytes); a password its length and safe characters.
  if (Buffer.from(published, 'base64').length === 32 && published.endsWith('=')) return randomBytes(32).toString('base64');
  return `own-${randomBytes(24).toString('hex')}`.slice(0, Math.max(published.length, 12));
}
function ownSecret(value: string): string {
  let own = value;
  // Longest first, so a published value inside another is not swapped in pieces.
  for (const published of [...OWN_SECRETS.keys()].sort((a, b) => b.length - a.length)) {
    own = own.split(published).join(OWN_SECRETS.get(published)!);
  }
  return own;
}
const environmentOf = (container: Doc) => environmentIn(docs, container);
/** The configuration a container's process loads from its environment (as its entry point does: for its kind). */
const configIn = (rendered: Doc[], container: Doc) => loadConfig(environmentIn(rendered, container), container.args[0]);

const processOf = (container: Doc) => container.args[0] as 'api' | 'worker' | 'migrate';

describeRendered('deploy/kubernetes (example overlay)', () => {
  it('when rendered, then the API, one worker per source, the migrations Job, budgets and scalers are there', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'leadgen-api',
      'leadgen-webhooks',
      'leadgen-worker-google-maps',
      'leadgen-worker-linkedin',
      'leadgen-worker-shopify',
    ]);
    expect(byKind('Service').map((d) => d.metadata.name)).toEqual([
      'leadgen-api',
      'leadgen-pgbouncer',
      'leadgen-webhooks-ops',
      'leadgen-worker-google-maps-ops',
      'leadgen-worker-linkedin-ops',
      'leadgen-worker-shopify-ops',
    ]);
    expect(byKind('Job').map((d) => d.metadata.name)).toEqual(['leadgen-migrate']);
    // The fleet's five and PgBouncer's.
    expect(byKind('PodDisruptionBudget')).toHaveLength(6);
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
        expect(() => loadConfig(environment, container.args[0])).not.toThrow();
      }
    }
  });

  it("when the example overlay's Secrets are read as they are, then production refuses them, naming each variable", () => {
    const api = deployments.find((d) => d.metadata.name === 'leadgen-api')!.spec.template.spec.containers[0];
    const asRendered: Record<string, string> = { ...environmentOf(api) };
    for (const { name, valueFrom } of api.env ?? []) {
      const ref = valueFrom?.secretKeyRef;
      const encoded = ref && docs.find((d) => d.kind === 'Secret' && d.metadata.name === ref.name)?.data?.[ref.key];
      if (encoded) asRendered[name] = Buffer.from(encoded, 'base64').toString('utf8');
    }
    expect(asRendered.NODE_ENV).toBe('production');
    expect(() => loadConfig(asRendered, 'api')).toThrow(/SECRETS_ENCRYPTION_KEY: is an example value published in this repository/);
  });

  it('when the probes are read, then they hit the paths and ports each process serves', () => {
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const config = configIn(docs, container);
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
    const service = byKind('Service').find((d) => d.metadata.name === 'leadgen-api')!;
    expect(service.spec.selector).toEqual(api.metadata.labels);
    for (const port of service.spec.ports) expect(api.spec.containers[0].ports.map((p: Doc) => p.name)).toContain(port.targetPort);
  });

  it('when a pod is stopped, then its grace period outlasts SHUTDOWN_GRACE_MS and any preStop pause', () => {
    for (const deployment of deployments) {
      const spec = deployment.spec.template.spec;
      const container = spec.containers[0];
      const pause = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      const grace = configIn(docs, container).shutdownGraceMs;
      expect(spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace + pause * 1000 + 5_000);
      expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    }
  });

  it('when the workers are read, then each source has exactly one Deployment serving only it, with a budget', () => {
    const workers = deployments.filter((d) => d.metadata.name.startsWith('leadgen-worker-'));
    const served = workers.map((d) => configIn(docs, d.spec.template.spec.containers[0]).worker.sources);
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
        processOf(d.spec.template.spec.containers[0]) === 'worker' && configIn(docs, d.spec.template.spec.containers[0]).webhooks.deliver,
    );
    expect(deliverers.map((d) => d.metadata.name)).toEqual(['leadgen-webhooks']);
    const config = configIn(docs, deliverers[0]!.spec.template.spec.containers[0]);
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
        const config = configIn(docs, container);
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

describeRendered.each([
  ['redis-cluster', 'cluster'],
  ['redis-sentinel', 'sentinel'],
] as const)('the %s overlay', (overlay, topology) => {
  const rendered = hasKubectl || process.env.CI ? renderOverlay(overlay) : [];
  const scalers = rendered.filter((d) => d.kind === 'ScaledObject');
  const workers = rendered.filter(
    (d) => d.kind === 'Deployment' && isLeadgen(d) && processOf(d.spec.template.spec.containers[0]) === 'worker',
  );

  it(`when its workers are read, then they reach Redis through ${topology}, and each scaler watches its queue's own lists with a ${overlay} trigger`, () => {
    expect(workers.length).toBe(SOURCES.length + 1);
    for (const worker of workers) {
      const config = configIn(rendered, worker.spec.template.spec.containers[0]);
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

describeRendered('deploy/kubernetes secrets: each process gets only the variables it reads', () => {
  it('when secret-env.yaml is compared with what `npm run deploy:kubernetes` writes from the declaration, then they are the same', () => {
    expect(readFileSync(path.join(KUBERNETES_BASE, SECRET_ENV_FILE), 'utf8')).toBe(renderSecretEnvFile());
    expect(baseWorkloads().map((w) => w.name)).toEqual([
      'leadgen-api',
      'leadgen-migrate',
      'leadgen-webhooks',
      'leadgen-worker-google-maps',
      'leadgen-worker-linkedin',
      'leadgen-worker-shopify',
    ]);
  });

  it('when the declaration is read, then every secret variable names the processes that read it', () => {
    const secrets = VARIABLES.filter((v) => v.options.secret);
    expect(secrets.filter((v) => !v.options.readBy?.length).map((v) => v.name)).toEqual([]);
    expect(secrets.map((v) => v.name)).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'SECRETS_ENCRYPTION_KEY', 'OPERATOR_PASSWORD', 'PDL_API_KEY']),
    );
  });

  it.each(['example', 'redis-cluster', 'redis-sentinel'])(
    'when overlay %s is rendered, then every pod takes from the Secret exactly the keys its process reads, none the whole Secret',
    (overlay) => {
      const rendered = renderOverlay(overlay);
      const workloads = rendered.filter((d) => (d.kind === 'Deployment' || d.kind === 'Job') && isLeadgen(d));
      expect(workloads).toHaveLength(6);
      for (const workload of workloads) {
        const container = workload.spec.template.spec.containers[0];
        const process = processOfContainer(container);
        const fromSecret = (container.env ?? []).filter((e: Doc) => e.valueFrom?.secretKeyRef);
        const given = fromSecret.map((e: Doc) => e.name);
        const name = workload.metadata.name;
        expect({ name, given }).toEqual({ name, given: secretVariablesOf(process).map((v) => v.name) });
        // Each variable from its own key, but the API's and the workers' DATABASE_URL, which components/pgbouncer
        // takes from DATABASE_PGBOUNCER_URL (the migrations Job keeps PostgreSQL's own).
        const viaPgBouncer = (e: Doc) => e.name === 'DATABASE_URL' && process.kind !== 'migrate';
        expect({ name, keys: fromSecret.map((e: Doc) => e.valueFrom.secretKeyRef.key) }).toEqual({
          name,
          keys: fromSecret.map((e: Doc) => (viaPgBouncer(e) ? 'DATABASE_PGBOUNCER_URL' : e.name)),
        });
        expect({ name, whole: (container.envFrom ?? []).filter((f: Doc) => f.secretRef) }).toEqual({ name, whole: [] });
      }
      const byName = (name: string) => workloads.find((w) => w.metadata.name === name)!.spec.template.spec.containers[0];
      const keys = (name: string): string[] => (byName(name).env ?? []).map((e: Doc) => e.name);
      // The promises that matter, spelled out: no provider key or operator password where it is not used.
      expect(keys('leadgen-migrate')).toEqual(['DATABASE_URL', 'DATABASE_OWNER_URL', 'SECRETS_ENCRYPTION_KEY']);
      // The API lists area quotes' tiles through Google (decision 039) and checks filters against its tier (038).
      expect(keys('leadgen-api')).toContain('GOOGLE_PLACES_API_KEY');
      expect(keys('leadgen-api')).not.toContain('PDL_API_KEY');
      expect(keys('leadgen-worker-google-maps')).not.toContain('OPERATOR_PASSWORD');
      expect(keys('leadgen-worker-google-maps')).not.toContain('PDL_API_KEY');
      expect(keys('leadgen-webhooks').filter((k) => k.endsWith('_API_KEY'))).toEqual([]);
      // The key to every webhook secret: only where webhook secrets are sealed or opened.
      for (const worker of ['leadgen-worker-google-maps', 'leadgen-worker-linkedin', 'leadgen-worker-shopify'])
        expect({ worker, keys: keys(worker) }).toEqual({ worker, keys: expect.not.arrayContaining(['SECRETS_ENCRYPTION_KEY']) });
      expect(keys('leadgen-webhooks')).toContain('SECRETS_ENCRYPTION_KEY');
    },
  );

  it('when the example secrets.env is read, then each of its keys is a secret variable, or a key of the Secret some pod is given', () => {
    const example = readEnvFile(readFileSync(path.join(KUBERNETES, 'overlays/example/secrets.env.example'), 'utf8'));
    const secretNames = VARIABLES.filter((v) => v.options.secret).map((v) => v.name);
    // DATABASE_PGBOUNCER_URL: the key components/pgbouncer gives the API and the workers as DATABASE_URL.
    const keysGiven = new Set(
      docs
        .filter((d) => d.kind === 'Deployment' || d.kind === 'Job')
        .flatMap((d) => [...(d.spec.template.spec.initContainers ?? []), ...d.spec.template.spec.containers])
        .flatMap((c: Doc) => (c.env ?? []).flatMap((e: Doc) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.key] : []))),
    );
    expect(Object.keys(example).filter((key) => !secretNames.includes(key) && !keysGiven.has(key))).toEqual([]);
    expect(Object.keys(example)).toContain('DATABASE_PGBOUNCER_URL');
    expect(Object.keys(example)).toContain('DATABASE_URL');
  });
});

/** An IPv4 address in a CIDR (the policies' IPv6 blocks are not exercised here). */
function inCidr(address: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  if (!base!.includes('.') || !address.includes('.')) return false;
  const toNumber = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toNumber(address) / size) === Math.floor(toNumber(base!) / size);
}

const matchesLabels = (selector: Doc, labels: Record<string, string>) =>
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  (selector.matchExpressions ?? []).every((e: Doc) => e.operator === 'In' && e.values.includes(labels[e.key]));

interface Peer {
  namespace?: string;
  address?: string;
}

/**
 * Whether the NetworkPolicies of a render let traffic through, as Kubernetes evaluates them: a pod no
 * policy of that direction selects is open; otherwise some rule must match the peer and the port
 * (a named port resolved against the pod's container).
 */
function allowed(rendered: Doc[], direction: 'Ingress' | 'Egress', pod: Doc, peer: Peer, port: number, protocol = 'TCP'): boolean {
  const labels = pod.spec.template.metadata.labels;
  const container = pod.spec.template.spec.containers[0];
  const policies = rendered.filter(
    (d) => d.kind === 'NetworkPolicy' && d.spec.policyTypes.includes(direction) && matchesLabels(d.spec.podSelector, labels),
  );
  if (policies.length === 0) return true;
  const portMatches = (p: Doc) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (p.endPort !== undefined) return port >= p.port && port <= p.endPort;
    const number =
      typeof p.port === 'number'
        ? p.port
        : direction === 'Ingress'
          ? container.ports?.find((c: Doc) => c.name === p.port)?.containerPort
          : NaN;
    return number === port;
  };
  const peerMatches = (from: Doc) => {
    if (from.namespaceSelector)
      return peer.namespace !== undefined && matchesLabels(from.namespaceSelector, { 'kubernetes.io/metadata.name': peer.namespace });
    if (from.ipBlock)
      return (
        peer.address !== undefined &&
        inCidr(peer.address, from.ipBlock.cidr) &&
        !(from.ipBlock.except ?? []).some((c: string) => inCidr(peer.address!, c))
      );
    return false;
  };
  return policies.some((policy) =>
    (policy.spec[direction === 'Ingress' ? 'ingress' : 'egress'] ?? []).some((rule: Doc) => {
      const peers = rule[direction === 'Ingress' ? 'from' : 'to'];
      return (!peers || peers.some(peerMatches)) && (!rule.ports || rule.ports.some(portMatches));
    }),
  );
}

describeRendered('deploy/kubernetes NetworkPolicies', () => {
  const rendered = hasKubectl || process.env.CI ? renderOverlay('example') : [];
  const workload = (name: string) => rendered.find((d) => (d.kind === 'Deployment' || d.kind === 'Job') && d.metadata.name === name)!;
  const workers = ['leadgen-worker-google-maps', 'leadgen-worker-linkedin', 'leadgen-worker-shopify', 'leadgen-webhooks'];
  const secrets = readEnvFile(readFileSync(path.join(KUBERNETES, 'overlays/example/secrets.env.example'), 'utf8'));
  const databasePort = Number(new URL(secrets.DATABASE_URL!).port || 5432);
  const redisPort = Number(new URL(secrets.REDIS_URL!).port || 6379);

  it('when the API is reached, then its public port answers anyone and its operations port only the monitoring namespace', () => {
    const api = workload('leadgen-api');
    const config = configIn(rendered, api.spec.template.spec.containers[0]);
    expect(allowed(rendered, 'Ingress', api, { namespace: 'ingress-nginx' }, config.http.port)).toBe(true);
    expect(allowed(rendered, 'Ingress', api, { address: '203.0.113.7' }, config.http.port)).toBe(true);
    expect(allowed(rendered, 'Ingress', api, { namespace: 'ingress-nginx' }, DEFAULT_OPS_PORTS.api)).toBe(false);
    expect(allowed(rendered, 'Ingress', api, { namespace: 'monitoring' }, DEFAULT_OPS_PORTS.api)).toBe(true);
    expect(allowed(rendered, 'Ingress', api, { namespace: 'monitoring' }, 22)).toBe(false);
  });

  it('when a worker is reached, then only the monitoring namespace gets in, and only to the operations port', () => {
    for (const name of workers) {
      const worker = workload(name);
      expect({ name, ops: allowed(rendered, 'Ingress', worker, { namespace: 'monitoring' }, DEFAULT_OPS_PORTS.worker) }).toEqual({
        name,
        ops: true,
      });
      expect({ name, other: allowed(rendered, 'Ingress', worker, { namespace: 'default' }, DEFAULT_OPS_PORTS.worker) }).toEqual({
        name,
        other: false,
      });
      expect({ name, public: allowed(rendered, 'Ingress', worker, { address: '203.0.113.7' }, 3000) }).toEqual({ name, public: false });
    }
  });

  it('when the processes call out, then workers reach public HTTPS, every process DNS and the database, and nothing reaches private web ports', () => {
    for (const name of workers) {
      const worker = workload(name);
      expect({ name, upstream: allowed(rendered, 'Egress', worker, { address: '142.250.1.1' }, 443) }).toEqual({ name, upstream: true });
      expect({ name, metadata: allowed(rendered, 'Egress', worker, { address: '169.254.169.254' }, 80) }).toEqual({
        name,
        metadata: false,
      });
      expect({ name, privateWeb: allowed(rendered, 'Egress', worker, { address: '10.1.2.3' }, 443) }).toEqual({ name, privateWeb: false });
      expect({ name, redis: allowed(rendered, 'Egress', worker, { address: '10.1.2.3' }, redisPort) }).toEqual({ name, redis: true });
    }
    for (const name of ['leadgen-api', 'leadgen-migrate', ...workers]) {
      const pod = workload(name);
      expect({ name, dns: allowed(rendered, 'Egress', pod, { address: '10.96.0.10' }, 53, 'UDP') }).toEqual({ name, dns: true });
      expect({ name, db: allowed(rendered, 'Egress', pod, { address: '10.1.2.4' }, databasePort) }).toEqual({ name, db: true });
      expect({ name, ssh: allowed(rendered, 'Egress', pod, { address: '10.1.2.4' }, 22) }).toEqual({ name, ssh: false });
    }
    // Webhook URLs may name ports from 1024 up (decision 016): only the deliverers reach them.
    expect(allowed(rendered, 'Egress', workload('leadgen-webhooks'), { address: '203.0.113.9' }, 8443)).toBe(true);
    expect(allowed(rendered, 'Egress', workload('leadgen-webhooks'), { address: '192.168.1.9' }, 8443)).toBe(false);
    expect(allowed(rendered, 'Egress', workload('leadgen-worker-shopify'), { address: '203.0.113.9' }, 8443)).toBe(false);
    // The API calls no upstream.
    expect(allowed(rendered, 'Egress', workload('leadgen-api'), { address: '142.250.1.1' }, 443)).toBe(false);
  });

  it('when the manifests are read, then the comment that relies on a NetworkPolicy has one to rely on', () => {
    const apiManifest = readFileSync(path.join(KUBERNETES_BASE, 'api.yaml'), 'utf8');
    expect(apiManifest).toMatch(/NetworkPolicy/);
    expect(rendered.filter((d) => d.kind === 'NetworkPolicy').map((d) => d.metadata.name)).toContain('leadgen-ops-from-monitoring');
  });
});

describeRendered('deploy/kubernetes scraping', () => {
  const rendered = hasKubectl || process.env.CI ? renderOverlay('example') : [];
  // The route both entry points mount on the operations port.
  const METRICS_PATH = '/metrics';
  it('when the entry points are read, then both serve /metrics on the operations port', () => {
    for (const app of ['api', 'worker'])
      expect(readFileSync(path.join(KUBERNETES, `../../apps/${app}/src/main.ts`), 'utf8')).toContain(
        `routes: { '${METRICS_PATH}': metricsRoute }`,
      );
  });

  const deployments = rendered.filter((d) => d.kind === 'Deployment' && isLeadgen(d));

  it('when Prometheus reads the pod annotations, then each names the operations port its process listens on', () => {
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const annotations = deployment.spec.template.metadata.annotations ?? {};
      const config = configIn(rendered, container);
      const port = config.ops.port ?? DEFAULT_OPS_PORTS[container.args[0] as 'api' | 'worker'];
      const name = deployment.metadata.name;
      expect({ name, annotations }).toEqual({
        name,
        annotations: expect.objectContaining({
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(port),
          'prometheus.io/path': METRICS_PATH,
        }),
      });
    }
  });

  it('when the ServiceMonitor is followed, then it reaches the operations port of every Deployment', () => {
    const monitors = rendered.filter((d) => d.kind === 'ServiceMonitor');
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0]!;
    const services = rendered.filter((d) => d.kind === 'Service' && matchesLabels(monitor.spec.selector, d.metadata.labels ?? {}));
    const scraped = new Set<string>();
    for (const endpoint of monitor.spec.endpoints) {
      expect(endpoint.path).toBe(METRICS_PATH);
      for (const service of services) {
        const port = service.spec.ports.find((p: Doc) => p.name === endpoint.port);
        if (!port) continue;
        for (const deployment of deployments.filter((d) =>
          matchesLabels({ matchLabels: service.spec.selector }, d.spec.template.metadata.labels),
        )) {
          const container = deployment.spec.template.spec.containers[0];
          expect(container.ports.find((p: Doc) => p.name === port.targetPort)?.containerPort).toBe(
            DEFAULT_OPS_PORTS[container.args[0] as 'api' | 'worker'],
          );
          scraped.add(deployment.metadata.name);
        }
      }
    }
    expect([...scraped].sort()).toEqual(deployments.map((d) => d.metadata.name).sort());
  });
});

describeRendered('deploy/kubernetes KEDA: the queues and the Redis the pods use', () => {
  const setPrefix = (root: string, overlay: string, prefix: string) => {
    const file = path.join(root, 'overlays', overlay, 'kustomization.yaml');
    const text = readFileSync(file, 'utf8');
    const anchor = overlay === 'example' ? '      - TRUST_PROXY=1\n' : '      - REDIS_CLUSTER_NODES=redis-cluster.example.internal:6379\n';
    expect(text).toContain(anchor);
    writeFileSync(file, text.replace(anchor, `${anchor}      - QUEUE_PREFIX=${prefix}\n`));
  };
  const queueOf = (rendered: Doc[], scaler: Doc) => {
    const deployment = rendered.find((d) => d.kind === 'Deployment' && d.metadata.name === scaler.spec.scaleTargetRef.name)!;
    return processOfContainer(deployment.spec.template.spec.containers[0]);
  };

  it.each([
    ['example', false, 'prod:lg'],
    ['example', false, 'other'],
    ['redis-cluster', true, 'prod:lg'],
    ['redis-cluster', true, 'leadgen'],
  ] as const)(
    'when overlay %s (cluster: %s) is rendered with QUEUE_PREFIX=%s, then every trigger watches the lists BullMQ writes',
    (overlay, cluster, prefix) => {
      const rendered = renderOverlay(overlay, (root) => setPrefix(root, overlay, prefix));
      const config = rendered.find((d) => d.kind === 'ConfigMap' && d.metadata.name.startsWith('leadgen-config'))!;
      expect(config.data.QUEUE_PREFIX).toBe(prefix);
      const keys = new RedisKeys(prefix, cluster);
      const scalers = rendered.filter((d) => d.kind === 'ScaledObject');
      expect(scalers).toHaveLength(SOURCES.length + 1);
      for (const scaler of scalers) {
        const process = queueOf(rendered, scaler);
        if (process.kind !== 'worker') throw new Error('a scaler targets no worker');
        const queue = process.queues[0]!;
        const queueName = queue === 'webhooks' ? WEBHOOK_QUEUE_NAME : QUEUE_NAMES[queue as keyof typeof QUEUE_NAMES];
        expect(scaler.spec.triggers.map((t: Doc) => t.metadata.listName)).toEqual([
          `${keys.queuePrefix(queueName)}:${queueName}:wait`,
          `${keys.queuePrefix(queueName)}:${queueName}:active`,
        ]);
      }
    },
  );

  /** Each source's scaler has a wait and an active trigger on every shard, as BullMQ names their lists (decision 048). */
  const expectShardTriggers = (rendered: K8sObject[], prefix: string, shards: number) => {
    const config = rendered.find((d) => d.kind === 'ConfigMap' && d.metadata.name.startsWith('leadgen-config'))!;
    expect(Number(config.data.QUEUE_SHARDS)).toBe(shards);
    const keys = new RedisKeys(prefix, true);
    const scalers = rendered.filter((d) => d.kind === 'ScaledObject');
    expect(scalers).toHaveLength(SOURCES.length + 1);
    for (const scaler of scalers) {
      const process = queueOf(rendered, scaler);
      if (process.kind !== 'worker') throw new Error('a scaler targets no worker');
      if (process.queues[0] === 'webhooks') continue;
      const source = process.queues[0] as keyof typeof QUEUE_NAMES;
      const names = Array.from({ length: shards }, (_, shard) => shardQueueName(source, shard));
      expect(scaler.spec.triggers.map((t: Doc) => [t.type, t.metadata.listName, t.metadata.listLength])).toEqual(
        names.flatMap((name) => [
          ['redis-cluster', `${keys.queuePrefix(name)}:${name}:wait`, String(Math.ceil(10 / shards))],
          ['redis-cluster', `${keys.queuePrefix(name)}:${name}:active`, String(Math.ceil(5 / shards))],
        ]),
      );
    }
  };

  it.each(['leadgen', 'prod:lg'])(
    "when overlay redis-cluster-shards is rendered with QUEUE_PREFIX=%s, then each source's scaler has a wait and an active trigger on every shard, as BullMQ names their lists (decision 048)",
    (prefix) => {
      expectShardTriggers(
        renderOverlay('redis-cluster-shards', (root) => setPrefix(root, 'redis-cluster', prefix)),
        prefix,
        4,
      );
    },
  );

  it('when overlay redis-cluster-shards is compared with what `npm run deploy:queue-shards -- 4` writes, then it is that output, not a hand copy', () => {
    expect(readFileSync(path.join(KUBERNETES, 'overlays/redis-cluster-shards/kustomization.yaml'), 'utf8')).toBe(
      queueShardsKustomization(4),
    );
  });

  it.each([
    [2, 'leadgen'],
    [3, 'prod:lg'],
    [16, 'leadgen'],
  ])(
    'when an operator writes an overlay with `npm run deploy:queue-shards -- %i`, then kubectl kustomize renders it (QUEUE_PREFIX=%s) with QUEUE_SHARDS and a wait and an active trigger on every shard',
    (shards, prefix) => {
      const rendered = renderOverlay('mine', (root) => {
        setPrefix(root, 'redis-cluster', prefix);
        writeQueueShardsOverlay(shards, 'overlays/mine', root, root);
      });
      expectShardTriggers(rendered, prefix, shards);
    },
  );

  it('when the shard count is not 2 to 64, then no overlay is written', () => {
    for (const shards of [0, 1, 65, 2.5]) expect(() => queueShardsKustomization(shards)).toThrow(/from 2 to 64/);
  });

  it('when an operator deploys through production-overlay with a REDIS_URL naming a database and TLS, then KEDA reads that database over TLS at that address, as the pods do', () => {
    const redisUrl = 'rediss://queue:s3cret@redis.internal:6380/3';
    // As docs/operations.md has it: the template copied to overlays/<yours>, its secrets.env written, then the script.
    const rendered = renderOverlay('mine', (root) => {
      const dir = path.join(root, 'overlays/mine');
      cpSync(path.join(root, 'production-overlay'), dir, { recursive: true });
      const example = readFileSync(path.join(root, 'overlays/example/secrets.env.example'), 'utf8');
      writeFileSync(path.join(dir, 'secrets.env'), example.replace(/^REDIS_URL=.*$/m, `REDIS_URL=${redisUrl}`));
      writeKedaRedisFiles('overlays/mine', root);
    });
    const api = rendered.find((d) => d.kind === 'Deployment' && d.metadata.name === 'leadgen-api')!;
    expect(configIn(rendered, api.spec.template.spec.containers[0]).redis.url).toBe(redisUrl);
    for (const scaler of rendered.filter((d) => d.kind === 'ScaledObject'))
      for (const trigger of scaler.spec.triggers)
        expect(trigger.metadata).toEqual(expect.objectContaining({ databaseIndex: '3', enableTLS: 'true' }));
    const auth = rendered.find((d) => d.kind === 'TriggerAuthentication')!;
    const secret = rendered.find((d) => d.kind === 'Secret' && d.metadata.name === auth.spec.secretTargetRef[0].name)!;
    const decoded = Object.fromEntries(
      Object.entries(secret.data as Record<string, string>).map(([k, v]: [string, string]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(decoded).toEqual({ address: 'redis.internal:6380', username: 'queue', password: 's3cret' });
    expect(auth.spec.secretTargetRef.map((r: Doc) => [r.parameter, r.key])).toEqual([
      ['address', 'address'],
      ['username', 'username'],
      ['password', 'password'],
    ]);
  });

  it("when the example overlay's KEDA files are compared with what `npm run deploy:keda-redis` derives from its secrets.env, then they agree", () => {
    const dir = path.join(KUBERNETES, 'overlays/example');
    const files = kedaRedisFiles(readEnvFile(readFileSync(path.join(dir, 'secrets.env.example'), 'utf8')).REDIS_URL!);
    expect(readFileSync(path.join(dir, 'keda-redis.env.example'), 'utf8')).toBe(files.secret);
    expect(readFileSync(path.join(dir, 'keda-redis.properties'), 'utf8')).toBe(files.options);
    expect(kedaRedisFiles('redis://127.0.0.1:6379').options).toBe('databaseIndex=0\nenableTLS=false\n');
  });
});
