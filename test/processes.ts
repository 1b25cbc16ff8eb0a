import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

/** The repository's root, for starting its processes as an operator would. */
export const ROOT = path.resolve(__dirname, '..');

/** A TCP port nobody listens on right now, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type WorkerProcess = ChildProcess & { ready: Promise<void>; output: () => string };

/** A worker process from the sources, as an operator starts it; `ready` resolves once it says it started. */
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
    if (process.env.DEBUG_WORKERS) child.stdout!.pipe(process.stderr);
    child.on('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}) before it started: ${output.slice(-2000)}`)));
  });
  child.ready.catch(() => undefined);
  return child;
}
