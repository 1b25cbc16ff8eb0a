import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@leadgen/db';

export const ROOT = path.resolve(__dirname, '../..');

/** How hard the fault suite pushes: small in CI (FAULT_SCALE=ci), larger by hand (FAULT_SCALE=full). */
export const SCALE = process.env.FAULT_SCALE === 'full' ? { jobs: 120, seconds: 90 } : { jobs: 30, seconds: 25 };

/** A database of the fault test's own, migrated, on the server DATABASE_URL names; dropped by `drop`. */
export async function ownDatabase(base = process.env.DATABASE_URL!): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(base);
  const name = `leadgen_fault_${randomBytes(4).toString('hex')}`;
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return {
    url: url.toString(),
    async drop() {
      const admin = new Client({ connectionString: Object.assign(new URL(base), { pathname: '/postgres' }).toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
    },
  };
}

export type WorkerProcess = ChildProcess & { ready: Promise<void>; output: () => string };

/** A worker process as an operator starts it; `ready` resolves once it has said it started. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/worker/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as WorkerProcess;
  let output = '';
  child.output = () => output;
  child.ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker started')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}) before it started: ${output.slice(-1500)}`)));
  });
  child.ready.catch(() => undefined);
  return child;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
