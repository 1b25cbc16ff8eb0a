// `npm run deploy:kubernetes`: writes deploy/kubernetes/base/secret-env.yaml, the patches that hand
// each Deployment and the migrations Job the secret variables its process reads, one `secretKeyRef`
// each, from the declaration of every variable (packages/config/src/variables.ts: `secret`, `readBy`).
// No pod takes the whole Secret (`envFrom`); test/deploy-kubernetes.test.ts fails while this file
// and the declaration differ, or while a rendered overlay hands a pod anything else.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { secretVariablesOf, type DeployedProcess } from '@leadgen/config';

export const KUBERNETES_BASE = path.resolve(__dirname, '../deploy/kubernetes/base');
export const SECRET_ENV_FILE = 'secret-env.yaml';
/** The Secret every secret variable comes from (an overlay generates it, or a secret manager makes it). */
export const SECRETS_NAME = 'leadgen-secrets';

interface Container {
  name: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
}
export interface Workload {
  kind: 'Deployment' | 'Job';
  name: string;
  container: string;
  process: DeployedProcess;
}

/** The process a container runs: its image argument (`api`, `worker`, `migrate`) and, for a worker, its WORKER_QUEUES. */
export function processOfContainer(container: Container): DeployedProcess {
  const command = container.args?.[0];
  if (command === 'api' || command === 'migrate') return { kind: command };
  if (command === 'worker') {
    const queues = container.env?.find((e) => e.name === 'WORKER_QUEUES')?.value;
    if (!queues) throw new Error(`worker container ${container.name} sets no WORKER_QUEUES: it would serve every queue`);
    return {
      kind: 'worker',
      queues: queues
        .split(',')
        .map((q) => q.trim())
        .filter(Boolean),
    };
  }
  throw new Error(`container ${container.name} runs "${command}", which is no process of the image`);
}

/** Every Deployment and Job of the base manifests, with the process its container runs. */
export function baseWorkloads(base = KUBERNETES_BASE): Workload[] {
  const workloads: Workload[] = [];
  for (const file of readdirSync(base).filter((f) => f.endsWith('.yaml') && f !== SECRET_ENV_FILE && !f.startsWith('kustomiz'))) {
    for (const doc of parseAllDocuments(readFileSync(path.join(base, file), 'utf8'))) {
      const object = doc.toJS() as {
        kind?: string;
        metadata: { name: string };
        spec: { template: { spec: { containers: Container[] } } };
      } | null;
      if (object?.kind !== 'Deployment' && object?.kind !== 'Job') continue;
      const [container, ...more] = object.spec.template.spec.containers;
      if (!container || more.length > 0) throw new Error(`${object.kind}/${object.metadata.name}: one container expected`);
      workloads.push({ kind: object.kind, name: object.metadata.name, container: container.name, process: processOfContainer(container) });
    }
  }
  return workloads.sort((a, b) => a.name.localeCompare(b.name));
}

/** The `env` entries that hand a process its secret variables from the Secret. */
export function secretEnvOf(process: DeployedProcess): Array<{
  name: string;
  valueFrom: { secretKeyRef: { name: string; key: string; optional?: true } };
}> {
  return secretVariablesOf(process).map((v) => ({
    name: v.name,
    valueFrom: {
      secretKeyRef: { name: SECRETS_NAME, key: v.name, ...(v.options.secret === 'optional' ? { optional: true as const } : {}) },
    },
  }));
}

/** secret-env.yaml as the declaration and the base manifests make it. */
export function renderSecretEnvFile(workloads = baseWorkloads()): string {
  const header = [
    '# Written by `npm run deploy:kubernetes` from packages/config/src/variables.ts: do not edit by hand.',
    "# Each process gets only the secret variables it reads (a variable's `readBy`), one key of the Secret",
    `# ${SECRETS_NAME} each; \`optional\` ones may be absent from it. docs/operations.md: secrets, split per process.`,
  ];
  const docs = workloads.map((w) => {
    const apiVersion = w.kind === 'Job' ? 'batch/v1' : 'apps/v1';
    const lines = [
      `apiVersion: ${apiVersion}`,
      `kind: ${w.kind}`,
      'metadata:',
      `  name: ${w.name}`,
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
    ];
    lines.push(`        - name: ${w.container}`, '          env:');
    for (const entry of secretEnvOf(w.process)) {
      const ref = entry.valueFrom.secretKeyRef;
      lines.push(
        `            - name: ${entry.name}`,
        '              valueFrom:',
        `                secretKeyRef: { name: ${ref.name}, key: ${ref.key}${ref.optional ? ', optional: true' : ''} }`,
      );
    }
    return lines.join('\n');
  });
  return `${header.join('\n')}\n${docs.join('\n---\n')}\n`;
}

if (require.main === module) {
  const file = path.join(KUBERNETES_BASE, SECRET_ENV_FILE);
  const written = renderSecretEnvFile();
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current === written) console.log(`deploy/kubernetes/base/${SECRET_ENV_FILE} is up to date`);
  else {
    writeFileSync(file, written);
    console.log(`deploy/kubernetes/base/${SECRET_ENV_FILE} written`);
  }
}
