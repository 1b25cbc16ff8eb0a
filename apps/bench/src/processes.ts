// The processes under test, each its own OS process so /proc can attribute CPU and memory to it:
// the service through its entry points (apps/api/src/main.ts, apps/worker/src/main.ts) and the
// bare baselines under apps/bench/src/baselines. Each is preloaded with count-sql.cjs.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '@leadgen/testing';

const COUNTER = path.join(__dirname, 'count-sql.cjs');

export interface Counts {
  sql: number;
  sqlTx: number;
  redis: number;
  /** Redis commands by name (a Lua script as `evalsha <its defined name>`) */
  redisByName?: Record<string, number>;
  /** SQL statements by the function they call (or their first word) */
  sqlByName?: Record<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class BenchProcess {
  /** the last lines it wrote to stderr: a config error or crash is reported with them */
  private stderrTail: string[] = [];
  private exited: Promise<void>;
  exitCode: number | null = null;
  stopping = false;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.stderrTail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      this.stderrTail = this.stderrTail.slice(-20);
    };
    child.stderr?.on('data', keep);
    child.stdout?.on('data', keep); // the service logs JSON to stdout; at LOG_LEVEL=warn only problems
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? 128 : 0);
        if (!this.stopping)
          console.error(
            `  ! ${name} (pid ${child.pid}) exited early: code ${code}, signal ${signal}${this.tail() ? `\n    ${this.tail()}` : ''}`,
          );
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitCode === null;
  }

  tail(): string {
    return this.stderrTail.slice(-3).join('\n    ');
  }

  /** The client-side counters of count-sql.cjs, asked over IPC. */
  async counts(): Promise<Counts> {
    if (!this.alive || !this.child.connected) return { sql: 0, sqlTx: 0, redis: 0 };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.child.off('message', onMessage);
        resolve({ sql: 0, sqlTx: 0, redis: 0 });
      }, 2_000);
      const onMessage = (m: unknown) => {
        const counts = (m as { benchCounts?: Counts }).benchCounts;
        if (!counts) return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve(counts);
      };
      this.child.on('message', onMessage);
      this.child.send('bench:counts');
    });
  }

  /** SIGTERM, as an orchestrator would; SIGKILL if it has not exited in time. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    if ((await Promise.race([this.exited.then(() => 'exited'), sleep(graceMs).then(() => 'timeout')])) === 'timeout') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Resolves when it exits on its own (a refused configuration, say). */
  whenExited(): Promise<void> {
    return this.exited;
  }
}

/** `node --require count-sql.cjs --import tsx <entry>`, cwd the repository root. */
export function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv, count: Array<'pg' | 'ioredis'>): BenchProcess {
  // BENCH_CPU_PROF=<dir>: each process writes a V8 CPU profile there when it exits (node refuses
  // --cpu-prof in NODE_OPTIONS, so it is passed here).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
  const child = spawn(process.execPath, [...profile, '--require', COUNTER, '--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...env, BENCH_COUNT: count.join(',') },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  return new BenchProcess(name, child);
}

/**
 * How long a process may take to start: tsx compiles the service at start, seconds on a quiet machine and past 90 s
 * with eight processes starting at once on two cores at a load average of 20 (BENCH_START_TIMEOUT_S, default 90).
 */
export const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_S || 90) * 1000;

/** Waits until `url` answers 2xx (tsx compiles the service at start: seconds on a busy machine). */
export async function waitForHttp(url: string, proc: BenchProcess, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.alive)
      throw new Error(`${proc.name} exited (code ${proc.exitCode}) before answering ${url}${proc.tail() ? `: ${proc.tail()}` : ''}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}
