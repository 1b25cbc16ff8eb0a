import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The repository's root, for starting its processes as an operator would. */
export const ROOT = path.resolve(__dirname, '../../..');

/** A TCP port nobody listens on right now, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A free port whose next one is free too (`npm start` gives the worker OPS_PORT + 1). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const next = createServer();
    const free = await new Promise<boolean>((resolve) => {
      next.once('error', () => resolve(false));
      next.listen(port + 1, '127.0.0.1', () => resolve(true));
    });
    if (free) await new Promise((resolve) => next.close(resolve));
    if (free && port < 65_535) return port;
  }
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

export interface ApiProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  output(): string;
  /**
   * SIGTERM, as an orchestrator stops it; resolves once it has exited with how many requests its
   * responses were checked for, and rejects listing every response that left the OpenAPI document
   * (or when the process could not say).
   */
  stop(): Promise<{ checked: number }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An API process from the sources, as an operator starts it, on a port of its own; resolves once its
 * /readyz answers 200. Every response it gives is checked against the served OpenAPI document by the
 * checker of the in-process harness (test/openapi-check-preload.ts), and `stop` fails on any that
 * leaves it, so a test talking to it over the network is held to the document as a component test is.
 * `entry` is the API's entry point; the check's own test gives a stand-in whose answers leave the document.
 */
export async function startApiProcess(env: Record<string, string>, entry = 'apps/api/src/main.ts'): Promise<ApiProcess> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-api-'));
  const reportFile = path.join(dir, 'openapi-check.json');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', path.join(ROOT, 'test/openapi-check-preload.ts'), path.join(ROOT, entry)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        OPS_PORT: '0',
        SHUTDOWN_GRACE_MS: '2000',
        ...env,
        PORT: String(port),
        OPENAPI_CHECK_REPORT: reportFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (process.env.DEBUG_API) child.stdout!.pipe(process.stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;

  // Generous: tsx compiles the API at start, and CI machines are shared.
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`api exited (${child.exitCode ?? child.signalCode}) before it was ready: ${output.slice(-2000)}`);
    const status = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      async (res) => (await res.arrayBuffer(), res.status),
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`api not ready on ${origin} after 60 s: ${output.slice(-2000)}`);
    }
    await sleep(100);
  }

  return {
    child,
    origin,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      const report = existsSync(reportFile)
        ? (JSON.parse(readFileSync(reportFile, 'utf8')) as { checked: number; problems: string[] })
        : null;
      rmSync(dir, { recursive: true, force: true });
      if (!report)
        throw new Error(`api exited (${child.exitCode ?? child.signalCode}) without its OpenAPI check report: ${output.slice(-2000)}`);
      if (report.problems.length)
        throw new Error(`responses that leave the OpenAPI document:\n${[...new Set(report.problems)].join('\n')}`);
      return { checked: report.checked };
    },
  };
}
