import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWorld, type TestWorld } from '../../../test/harness.js';
import { buildAccount, type TestAccount } from '../../../test/factories.js';
import { startApiProcess, type ApiProcess } from '@leadgen/testing';

const ROOT = path.resolve(__dirname, '../../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** The README's client example, as a consumer would paste it. */
function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /```ts\n(import \{ LeadgenClient[^]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no ```ts block starting with the client import');
  return block;
}

function tsc(dir: string, config: Record<string, unknown>): string {
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  try {
    return execFileSync(process.execPath, [TSC, '-p', dir], { cwd: dir, encoding: 'utf8' });
  } catch (error) {
    throw new Error(`tsc in ${dir} failed:\n${(error as { stdout?: string }).stdout ?? (error as Error).message}`, { cause: error });
  }
}

/**
 * @leadgen/client as a consumer outside this repository gets it: `npm pack`, unpacked into a temporary
 * project where no other @leadgen package resolves, type-checked with tsc (as a browser project without
 * Node's types, and as a Node project running the README's example) and run in plain Node as ES modules
 * against an API process.
 */
describe('@leadgen/client as published', () => {
  let dir: string;
  let world: TestWorld;
  let account: TestAccount;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadgen-client-consumer-'));
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        cwd: path.join(ROOT, 'packages/client'),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ filename: string }>;
    mkdirSync(path.join(dir, 'node_modules/@leadgen'), { recursive: true });
    execFileSync('tar', ['-xzf', path.join(dir, packed[0]!.filename), '-C', path.join(dir, 'node_modules/@leadgen')]);
    renameSync(path.join(dir, 'node_modules/@leadgen/package'), path.join(dir, 'node_modules/@leadgen/client'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Its dependency, as npm would install it beside it.
    symlinkSync(path.join(ROOT, 'node_modules/standardwebhooks'), path.join(dir, 'node_modules/standardwebhooks'));
    for (const dependency of ['@stablelib', 'fast-sha256'])
      symlinkSync(path.join(ROOT, 'node_modules', dependency), path.join(dir, 'node_modules', dependency));
  }, 120_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await api?.stop();
    await world?.close();
  });

  it('when packed, then only its build output and manifest, with no dependency on another @leadgen package', () => {
    const installed = path.join(dir, 'node_modules/@leadgen/client');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: '@leadgen/client',
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    });
    // One dependency, of its own: the Standard Webhooks verifier behind webhooks.verify.
    expect(manifest.dependencies).toEqual({ standardwebhooks: expect.any(String) });
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'dist', 'package.json']);
    expect(readFileSync(path.join(installed, 'README.md'), 'utf8')).toMatch(/## Migrating/);
    for (const file of readdirSync(path.join(installed, 'dist')))
      expect(readFileSync(path.join(installed, 'dist', file), 'utf8')).not.toMatch(/@leadgen\/(?!client)/);
    const resolveThere = createRequire(path.join(dir, 'consumer.js'));
    expect(() => resolveThere.resolve('@leadgen/domain')).toThrow(/Cannot find module/);
  });

  it('when a browser project without Node’s types uses it, then it type-checks, and a misuse does not', () => {
    writeFileSync(
      path.join(dir, 'browser.ts'),
      `import { LeadgenClient, LeadgenError, type JobBody, type TerminalJob, type paths } from '@leadgen/client';
const client = new LeadgenClient({ baseUrl: location.origin, apiKey: 'lg_live_x', fetch: window.fetch });
export async function show(jobId: string, signal: AbortSignal): Promise<string> {
  const job: JobBody = await client.getJob(jobId, { signal });
  if (!('terminal' in job)) return \`\${job.status} \${job.progress.deliveredCount}/\${job.progress.requestedCount}\`;
  const done: TerminalJob = job;
  return \`\${done.terminal.stopReason ?? 'complete'}: \${done.leads.map((l) => l.person?.fullName ?? l.businessName).join(', ')}\`;
}
export async function start(): Promise<void> {
  try {
    const started = await client.generate({ source: 'linkedin', category: 'cto', state: 'DE', linkedinParams: { seniority: ['vp'] } }, { wait: false });
    if ('terminal' in started) console.log(started.terminal.deliveredCount);
    const csv: ReadableStream<Uint8Array> = await client.exportLeadsCsv({ jobId: started.jobId });
    await csv.cancel();
  } catch (error) {
    if (error instanceof LeadgenError && error.code === 'rate_limited') console.log(error.problem.detail);
  }
}
export type Listing = paths['/api/v1/leads/jobs']['get']['responses'][200]['content']['application/json'];
`,
    );
    const browser = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
      },
      files: ['browser.ts'],
    };
    expect(tsc(dir, browser)).toBe('');
    writeFileSync(
      path.join(dir, 'browser.ts'),
      `import { LeadgenClient } from '@leadgen/client';\nawait new LeadgenClient({ baseUrl: '', apiKey: '' }).generate({ category: 'dentist', state: 'US', maxResults: '5' });\n`,
    );
    expect(() => tsc(dir, browser)).toThrow(/browser\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  it('when the README’s example runs in plain Node against an API process, then it type-checks and does what it says', async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 10_000 });
    api = await startApiProcess({
      DATABASE_URL: world.config.database.url,
      REDIS_URL: world.config.redis.url,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
    });
    writeFileSync(path.join(dir, 'readme.ts'), readmeExample().replace("'http://localhost:3000'", JSON.stringify(api.origin)));
    const node = {
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        outDir: 'out',
      },
      files: ['readme.ts'],
    };
    expect(tsc(dir, node)).toBe('');
    // Not execFileSync: the worker doing the example's job runs in this process and must not be blocked.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(dir, 'out/readme.js')], {
      cwd: dir,
      env: { ...process.env, LEADGEN_API_KEY: account.apiKey },
      timeout: 60_000,
    });
    const [job] = await world.db.job.findMany({
      where: { accountId: account.accountId },
      include: { leads: { orderBy: { position: 'asc' } } },
    });
    expect(stdout.trim().split('\n')).toEqual([
      'COMPLETE 50', // the job, waited for
      '1', // one page of COMPLETE jobs: this one
      ...job!.leads.map((lead) => (lead.data as { businessName: string }).businessName), // its leads, exported
    ]);
  }, 120_000);
});
