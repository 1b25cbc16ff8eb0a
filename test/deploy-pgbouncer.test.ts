import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import { freePort } from '@leadgen/testing';
import { hasKubectl, KUBERNETES, renderOverlay } from './kustomize';
import { asUser, pgbouncerBinary, startPgBouncer } from './pgbouncer-process';

// components/pgbouncer as the example overlay renders it: the processes' DATABASE_URL reaches PgBouncer (the
// migrations Job's does not), the connection budget holds on both sides, computed from the render, and the rendered
// pgbouncer.ini and configure.sh run under the real pgbouncer (Debian's) against the test PostgreSQL.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
const describeRendered = hasKubectl || process.env.CI ? describe : describe.skip;
const example = hasKubectl || process.env.CI ? renderOverlay('example') : [];

const isLeadgen = (d: Doc) => d.metadata.labels?.['app.kubernetes.io/name'] === 'leadgen';
const workloadsOf = (rendered: Doc[]) => rendered.filter((d) => (d.kind === 'Deployment' || d.kind === 'Job') && isLeadgen(d));
const pgbouncerOf = (rendered: Doc[]) => {
  const deployment = rendered.find((d) => d.kind === 'Deployment' && d.metadata.labels?.['app.kubernetes.io/name'] === 'pgbouncer');
  const service = rendered.find((d) => d.kind === 'Service' && d.metadata.labels?.['app.kubernetes.io/name'] === 'pgbouncer');
  if (!deployment || !service) throw new Error('no PgBouncer Deployment and Service in the render');
  const volume = deployment.spec.template.spec.volumes.find((v: Doc) => v.configMap);
  const configMap = rendered.find((d) => d.kind === 'ConfigMap' && d.metadata.name === volume.configMap.name);
  return { deployment, service, configMap: configMap!, ini: parseIni(configMap!.data['pgbouncer.ini']) };
};

/** pgbouncer.ini's settings, by section (comments and %include lines left out). */
function parseIni(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith(';') || line.startsWith('#') || line.startsWith('%')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else {
      const eq = line.indexOf('=');
      (sections[section] ??= {})[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
  }
  return sections;
}

/** A container's environment as the render gives it: its ConfigMaps, then its env, Secret keys decoded. */
function environmentIn(rendered: Doc[], container: Doc): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const from of container.envFrom ?? [])
    Object.assign(environment, rendered.find((d) => d.kind === 'ConfigMap' && d.metadata.name === from.configMapRef?.name)?.data);
  for (const { name, value, valueFrom } of container.env ?? []) {
    const ref = valueFrom?.secretKeyRef;
    const encoded = ref && rendered.find((d) => d.kind === 'Secret' && d.metadata.name === ref.name)?.data?.[ref.key];
    if (!ref) environment[name] = value;
    else if (encoded !== undefined) environment[name] = Buffer.from(encoded, 'base64').toString('utf8');
  }
  return environment;
}
/** The configuration a container's process loads (not as production: the example's published secrets are no matter here). */
const configOf = (rendered: Doc[], container: Doc) =>
  loadConfig({ ...environmentIn(rendered, container), NODE_ENV: 'development' }, container.args[0]);

/** A Deployment's surge in a rollout at `replicas`: its maxSurge (25% by default, rounded up) as Kubernetes reads it. */
function surgeOf(deployment: Doc, replicas: number, field: 'maxSurge' | 'maxUnavailable' = 'maxSurge'): number {
  if (deployment.spec.strategy?.type === 'Recreate') return 0;
  const value = deployment.spec.strategy?.rollingUpdate?.[field] ?? '25%';
  if (typeof value === 'number') return value;
  const share = (Number(value.replace('%', '')) / 100) * replicas;
  return field === 'maxSurge' ? Math.ceil(share) : Math.floor(share);
}

interface Budget {
  /** Client connections to PgBouncer: every process's pools that reach it, at the fleet's maximum. */
  clients: { steady: number; rollout: number };
  maxClientConn: number;
  /** Server connections PgBouncer may open to PostgreSQL. */
  servers: { steady: number; rollout: number };
  serverBudget: number;
}

/** The connection budget of a render, from its manifests only: replicas, scalers, DATABASE_POOL_SIZE, pgbouncer.ini. */
function budgetOf(rendered: Doc[]): Budget {
  const { deployment, service, ini } = pgbouncerOf(rendered);
  const pgbouncerHosts = new Set([service.metadata.name, `${service.metadata.name}.${service.metadata.namespace}`]);
  const pgbouncerPort = String(service.spec.ports[0].port);
  const reachesPgBouncer = (url: string | null | undefined) => {
    if (!url) return false;
    const parsed = new URL(url);
    return (
      [...pgbouncerHosts].some((h) => parsed.hostname === h || parsed.hostname.startsWith(`${h}.svc`)) && parsed.port === pgbouncerPort
    );
  };
  const clients = { steady: 0, rollout: 0 };
  for (const workload of workloadsOf(rendered).filter((w) => w.kind === 'Deployment')) {
    const scaler = rendered.find((d) => d.kind === 'ScaledObject' && d.spec.scaleTargetRef.name === workload.metadata.name);
    // KEDA's default maxReplicaCount is 100.
    const most = scaler ? (scaler.spec.maxReplicaCount ?? 100) : workload.spec.replicas;
    const config = configOf(rendered, workload.spec.template.spec.containers[0]);
    const pools = [config.database.url, config.database.readUrl].filter(reachesPgBouncer).length;
    clients.steady += most * pools * config.database.poolSize;
    clients.rollout += (most + surgeOf(workload, most)) * pools * config.database.poolSize;
  }
  const settings = ini.pgbouncer!;
  const poolSize = Number(settings.default_pool_size ?? 20) + Number(settings.reserve_pool_size ?? 0);
  const databases = Object.keys(ini.databases ?? {}).length || 1;
  // One pool per (database, user); max_db_connections (0: none) caps each database's.
  const perPod =
    databases * (Number(settings.max_db_connections ?? 0) > 0 ? Math.min(poolSize, Number(settings.max_db_connections)) : poolSize);
  const replicas = deployment.spec.replicas;
  // A rollout's surge pods, and those it stops, whose connections may last through their grace period.
  const inRollout = replicas + surgeOf(deployment, replicas) + Math.max(1, surgeOf(deployment, replicas, 'maxUnavailable'));
  const annotations = deployment.metadata.annotations;
  return {
    clients,
    maxClientConn: Number(settings.max_client_conn ?? 100),
    servers: { steady: replicas * perPod, rollout: inRollout * perPod },
    serverBudget:
      Number(annotations['leadgen/postgresql-max-connections']) - Number(annotations['leadgen/postgresql-connections-outside-pgbouncer']),
  };
}

const withinBudget = (b: Budget) => b.clients.rollout <= b.maxClientConn && b.servers.rollout <= b.serverBudget;

const matches = (selector: Doc, labels: Record<string, string>) =>
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  (selector.matchExpressions ?? []).every((e: Doc) => e.operator === 'In' && e.values.includes(labels[e.key]));

/** Whether the NetworkPolicies let pod `from` open a TCP connection to pod `to` (same namespace) on `port`. */
function podReaches(rendered: Doc[], from: Doc, to: Doc, port: number): boolean {
  const side = (pod: Doc, direction: 'Ingress' | 'Egress', peer: Doc) => {
    const labels = pod.spec.template.metadata.labels;
    const policies = rendered.filter(
      (d) => d.kind === 'NetworkPolicy' && d.spec.policyTypes.includes(direction) && matches(d.spec.podSelector, labels),
    );
    if (policies.length === 0) return true;
    const own = pod.spec.template.spec.containers[0];
    const portMatches = (p: Doc) =>
      (p.protocol ?? 'TCP') === 'TCP' &&
      (p.port === undefined ||
        p.port === port ||
        (typeof p.port === 'string' && direction === 'Ingress' && own.ports?.find((c: Doc) => c.name === p.port)?.containerPort === port));
    const peerMatches = (rule: Doc) =>
      rule.podSelector && !rule.namespaceSelector && matches(rule.podSelector, peer.spec.template.metadata.labels);
    return policies.some((policy) =>
      (policy.spec[direction === 'Ingress' ? 'ingress' : 'egress'] ?? []).some((rule: Doc) => {
        const peers = rule[direction === 'Ingress' ? 'from' : 'to'];
        return (!peers || peers.some(peerMatches)) && (!rule.ports || rule.ports.some(portMatches));
      }),
    );
  };
  return side(from, 'Egress', to) && side(to, 'Ingress', from);
}

/** Whether the NetworkPolicies let a pod open a TCP connection to an address outside the cluster on `port`. */
function reachesAddress(rendered: Doc[], from: Doc, port: number): boolean {
  const labels = from.spec.template.metadata.labels;
  const policies = rendered.filter(
    (d) => d.kind === 'NetworkPolicy' && d.spec.policyTypes.includes('Egress') && matches(d.spec.podSelector, labels),
  );
  return policies.some((policy) =>
    (policy.spec.egress ?? []).some(
      (rule: Doc) => !rule.to && (!rule.ports || rule.ports.some((p: Doc) => (p.protocol ?? 'TCP') === 'TCP' && p.port === port)),
    ),
  );
}

describeRendered('components/pgbouncer in the example overlay', () => {
  const { deployment, service, ini } = example.length ? pgbouncerOf(example) : ({} as ReturnType<typeof pgbouncerOf>);
  const byName = (name: string) => workloadsOf(example).find((w) => w.metadata.name === name)!;
  const fleet = () => workloadsOf(example).filter((w) => w.kind === 'Deployment');

  it('when rendered, then PgBouncer is two non-root pods of a pinned image with a read-only root, probes on its port, a budget and a Service', () => {
    expect(deployment.spec.replicas).toBe(2);
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toEqual(expect.objectContaining({ runAsNonRoot: true, runAsUser: expect.any(Number) }));
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const container of [...pod.initContainers, ...pod.containers]) {
      expect(container.image).toMatch(/^docker\.io\/edoburu\/pgbouncer:v\d+\.\d+\.\d+-p\d+$/);
      expect(container.securityContext).toEqual(
        expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }),
      );
      expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(container.resources.limits.memory).toEqual(expect.any(String));
    }
    const [pgbouncer] = pod.containers;
    const port = pgbouncer.ports.find((p: Doc) => p.name === 'pgbouncer');
    expect(port.containerPort).toBe(Number(ini.pgbouncer!.listen_port));
    for (const probe of ['readinessProbe', 'livenessProbe']) expect(pgbouncer[probe].tcpSocket.port).toBe('pgbouncer');
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([expect.objectContaining({ targetPort: 'pgbouncer' })]);
    const budget = example.find(
      (d) => d.kind === 'PodDisruptionBudget' && matches(d.spec.selector, deployment.spec.template.metadata.labels),
    );
    expect(budget?.spec.minAvailable).toBe(1);
    // The password reaches only the init container, from the Secret; the ConfigMap holds none.
    expect(pgbouncer.env).toBeUndefined();
    expect(JSON.stringify(pgbouncerOf(example).configMap.data)).not.toMatch(/change-me/);
  });

  it('when rendered, then pgbouncer.ini pools by transaction, resets nothing and logs the processes in with SCRAM', () => {
    expect(ini.pgbouncer).toEqual(
      expect.objectContaining({ pool_mode: 'transaction', server_reset_query: '', auth_type: 'scram-sha-256', unix_socket_dir: '' }),
    );
  });

  it("when each process's configuration is loaded, then the API's and every worker's DATABASE_URL is PgBouncer's Service, and the migrations Job's is PostgreSQL's", () => {
    const target = `${service.metadata.name}:${service.spec.ports[0].port}`;
    const deployments = fleet();
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'leadgen-api',
      'leadgen-webhooks',
      'leadgen-worker-google-maps',
      'leadgen-worker-linkedin',
      'leadgen-worker-shopify',
    ]);
    const direct = new URL(configOf(example, byName('leadgen-migrate').spec.template.spec.containers[0]).database.url);
    for (const workload of deployments) {
      const url = new URL(configOf(example, workload.spec.template.spec.containers[0]).database.url);
      const name = workload.metadata.name;
      expect({ name, reaches: url.host }).toEqual({ name, reaches: target });
      // The same role and database, so PgBouncer's userlist (DATABASE_URL's) lets them in.
      expect({ name, user: url.username, db: url.pathname }).toEqual({ name, user: direct.username, db: direct.pathname });
    }
    expect(direct.host).not.toBe(target);
    expect(direct.hostname).toBe('postgres.example.internal');
  });

  it('when the NetworkPolicies are read, then the API and the workers reach PgBouncer, the migrations Job does not, and PgBouncer reaches only PostgreSQL', () => {
    const port = Number(ini.pgbouncer!.listen_port);
    for (const workload of fleet()) {
      const name = workload.metadata.name;
      expect({ name, reaches: podReaches(example, workload, deployment, port) }).toEqual({ name, reaches: true });
    }
    expect(podReaches(example, byName('leadgen-migrate'), deployment, port)).toBe(false);
    expect(reachesAddress(example, byName('leadgen-migrate'), 5432)).toBe(true);
    expect(reachesAddress(example, deployment, 5432)).toBe(true);
    expect(reachesAddress(example, deployment, 443)).toBe(false);
    expect(reachesAddress(example, deployment, 6379)).toBe(false);
    // Nothing but the fleet gets in: not the API's other port, not another app in the namespace.
    expect(podReaches(example, deployment, byName('leadgen-api'), 3000)).toBe(false);
    const stranger = { spec: { template: { metadata: { labels: { 'app.kubernetes.io/name': 'other' } }, spec: { containers: [{}] } } } };
    expect(podReaches(example, stranger, deployment, port)).toBe(false);
  });

  it('when the budget is computed from the render, then the fleet at its maximum fits max_client_conn and PgBouncer fits PostgreSQL, as the overlay says', () => {
    const budget = budgetOf(example);
    expect(withinBudget(budget)).toBe(true);
    expect(budget.clients.rollout).toBeLessThanOrEqual(budget.maxClientConn);
    expect(budget.servers.rollout).toBeLessThanOrEqual(budget.serverBudget);
    // The comment in overlays/example states these figures: it must stay true.
    const comment = readFileSync(path.join(KUBERNETES, 'overlays/example/kustomization.yaml'), 'utf8');
    expect(comment).toContain(`= ${budget.clients.steady} (${budget.clients.rollout})`);
    expect(comment).toContain(`max_client_conn ${budget.maxClientConn}`);
    expect(comment).toContain(`= ${budget.servers.steady} (${budget.servers.rollout})`);
  });

  const editExample = (root: string, from: string, to: string) => {
    const file = path.join(root, 'overlays/example/kustomization.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(from);
    writeFileSync(file, text.replace(from, to));
  };
  const editComponent = (root: string, file: string, from: string | RegExp, to: string) => {
    const at = path.join(root, 'components/pgbouncer', file);
    const text = readFileSync(at, 'utf8');
    expect(text).toMatch(from);
    writeFileSync(at, text.replace(from, to));
  };

  it.each([
    ['google_maps maxReplicaCount raised to 40', (root: string) => editExample(root, 'value: 20', 'value: 40')],
    [
      'DATABASE_POOL_SIZE raised to 20',
      (root: string) => editExample(root, '      - TRUST_PROXY=1\n', '      - TRUST_PROXY=1\n      - DATABASE_POOL_SIZE=20\n'),
    ],
    ['a third PgBouncer replica', (root: string) => editComponent(root, 'pgbouncer.yaml', 'replicas: 2', 'replicas: 3')],
    [
      'the pool raised to 40 per pod',
      (root: string) => {
        editComponent(root, 'pgbouncer.ini', /^default_pool_size = \d+$/m, 'default_pool_size = 40');
        editComponent(root, 'pgbouncer.ini', /^max_db_connections = \d+$/m, 'max_db_connections = 40');
      },
    ],
    [
      'a PostgreSQL of 80 connections',
      (root: string) => editComponent(root, 'pgbouncer.yaml', 'postgresql-max-connections: "100"', 'postgresql-max-connections: "80"'),
    ],
  ])('when the example is rendered with %s, then the budget check fails', (_, edit) => {
    expect(withinBudget(budgetOf(renderOverlay('example', edit)))).toBe(false);
  });
});

// The rendered pgbouncer.ini and configure.sh under the real binary (Debian's pgbouncer; CI installs it).
const describeWithBouncer = (hasKubectl && pgbouncerBinary) || process.env.CI ? describe : describe.skip;

describeWithBouncer('components/pgbouncer under the real pgbouncer', () => {
  const { configMap } = example.length ? pgbouncerOf(example) : ({} as ReturnType<typeof pgbouncerOf>);
  const target = new URL(process.env.DATABASE_OWNER_URL!);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = decodeURIComponent(target.username);
  const database = decodeURIComponent(target.pathname.slice(1));
  let dir: string;
  let port: number;
  let bouncer: ChildProcess;
  const clients: Client[] = [];

  const configure = (databaseUrl: string, pgbouncerUrl: string) => {
    const [command, ...args] = asUser('/bin/sh');
    return spawnSync(command!, [...args, path.join(dir, 'configure.sh')], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: databaseUrl,
        DATABASE_PGBOUNCER_URL: pgbouncerUrl,
        PGBOUNCER_RUN_DIR: path.join(dir, 'run'),
      },
      encoding: 'utf8',
    });
  };
  const client = async (pass = password, db = database) => {
    const c = new Client({ host: '127.0.0.1', port, user, password: pass, database: db });
    await c.connect();
    clients.push(c);
    return c;
  };
  const backendPid = async (c: Client) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadgen-pgbouncer-ini-'));
    chmodSync(dir, 0o777);
    writeFileSync(path.join(dir, 'configure.sh'), configMap.data['configure.sh']);
    port = await freePort();
    // The Secret's two URLs, pointed at the test PostgreSQL (trust authentication: the password is PgBouncer's to check).
    const local = `postgresql://${encodeURIComponent(user)}:${password}@${target.host}/${encodeURIComponent(database)}`;
    const configured = configure(
      local,
      `postgresql://${encodeURIComponent(user)}:${password}@leadgen-pgbouncer:6432/${encodeURIComponent(database)}`,
    );
    expect(configured.status).toBe(0);
    expect(configured.stderr).not.toContain(password);
    // The rendered ini as it is, but for the run directory, the listening address and port, and an admin user for SHOW.
    const ini = (configMap.data['pgbouncer.ini'] as string)
      .replaceAll('/run/pgbouncer', path.join(dir, 'run'))
      .replace(/^listen_addr = .*$/m, 'listen_addr = 127.0.0.1')
      .replace(/^listen_port = .*$/m, `listen_port = ${port}`)
      .replace(/^\[pgbouncer\]$/m, `[pgbouncer]\nadmin_users = ${user}\nlogfile = ${dir}/pgbouncer.log`);
    writeFileSync(path.join(dir, 'pgbouncer.ini'), ini);
    bouncer = await startPgBouncer(path.join(dir, 'pgbouncer.ini'), port);
  }, 20_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    bouncer?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('when started on the rendered ini, then pgbouncer reads it as written: transaction pooling, its limits, no reset query', async () => {
    const admin = await client(password, 'pgbouncer');
    const settings = Object.fromEntries((await admin.query('SHOW CONFIG')).rows.map((r) => [r.key, r.value]));
    const written = parseIni(configMap.data['pgbouncer.ini']).pgbouncer!;
    for (const key of ['pool_mode', 'max_client_conn', 'default_pool_size', 'max_db_connections', 'server_reset_query', 'auth_type'])
      expect({ key, value: settings[key] }).toEqual({ key, value: written[key] });
    const databases = (await admin.query('SHOW DATABASES')).rows.find((r) => r.name === database);
    expect(databases).toEqual(expect.objectContaining({ host: target.hostname, port: Number(target.port || 5432), database }));
    expect(Number(databases.max_connections)).toBe(Number(written.max_db_connections));
  });

  it('when two clients query through it, then a server connection goes from one to the other between transactions, never inside one', async () => {
    const a = await client();
    const b = await client();
    // A stays connected; outside a transaction its server connection is back in the pool, and B gets it.
    const first = await backendPid(a);
    expect(await backendPid(b)).toBe(first);
    // Inside A's transaction the server is A's: B gets another.
    await a.query('BEGIN');
    expect(await backendPid(a)).toBe(first);
    expect(await backendPid(b)).not.toBe(first);
    await a.query('COMMIT');
    // Back in the pool at COMMIT: A's next statement and then B's get it again (the most recently released server).
    expect([first, await backendPid(a), await backendPid(b)]).toEqual([first, first, first]);
  });

  it('when a client gives another password, then PgBouncer refuses it', async () => {
    await expect(client('not-the-password')).rejects.toThrow(/authentication failed/);
    expect(readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8')).not.toContain(password);
  });

  it('when the Secret names two different roles, or several hosts, then configure.sh refuses, naming no password', () => {
    const mismatch = configure(
      'postgresql://leadgen_app:pw-first@db:5432/leadgen',
      'postgresql://leadgen_app:pw-second@leadgen-pgbouncer:6432/leadgen',
    );
    expect(mismatch.status).not.toBe(0);
    expect(mismatch.stderr).toMatch(/different passwords/);
    expect(mismatch.stderr).not.toMatch(/pw-first|pw-second/);
    const several = configure('postgresql://u:p@db-a:5432,db-b:5432/leadgen', 'postgresql://u:p@leadgen-pgbouncer:6432/leadgen');
    expect(several.status).not.toBe(0);
    expect(several.stderr).toMatch(/several hosts/);
    const none = configure('postgresql://u@db:5432/leadgen', 'postgresql://u@leadgen-pgbouncer:6432/leadgen');
    expect(none.stderr).toMatch(/no password/);
    expect(none.status).not.toBe(0);
  });
});
