import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, freePort, freePortPair } from '@leadgen/testing';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen_test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Run {
  code: Promise<number | null>;
  output: () => string;
  stderr: () => string;
  kill: (signal?: NodeJS.Signals) => void;
}

/** An entry point from the sources, as `npm run dev` / the images start it, with its own environment. */
function start(entry: string, env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}`,
      DATABASE_URL,
      REDIS_URL,
      // Borrowing off, as test/setup-env.ts has it: its workers would borrow other test files' held jobs in this database.
      WORKER_RESERVED_SLOTS: process.env.WORKER_RESERVED_SLOTS ?? '10000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  return {
    code: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    output: () => output,
    stderr: () => stderr,
    kill: (signal = 'SIGTERM') => child.kill(signal),
  };
}

async function until<T>(what: () => Promise<T | null> | T | null, ms = 60_000, output: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting; output so far:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as { port: number }).port, server };
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() && !line.includes('nodedir'));

describe('entry points failing loudly and clearly', () => {
  it('when PostgreSQL does not answer, then npm start exits 1 with one line naming DATABASE_URL and no stack', async () => {
    const dead = await freePort();
    const run = start('scripts/start-all.ts', {
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${dead}/leadgen`,
      PORT: String(await freePort()),
    });
    expect(await run.code).toBe(1);
    expect(lines(run.stderr())).toEqual(['start: PostgreSQL does not answer at DATABASE_URL: start it, or fix DATABASE_URL']);
  }, 60_000);

  it('when PostgreSQL refuses the login in DATABASE_URL, then the API and the worker exit 1 with one line naming DATABASE_URL, without its password', async () => {
    // Issue 31, finding 16: the admin CLI and db:migrate said so already; the long-running processes printed Prisma's text.
    const wrong = Object.assign(new URL(DATABASE_URL), { username: 'no_such_role_h31', password: 'hunter2-not-shown' }).toString();
    for (const [name, entry] of [
      ['api', 'apps/api/src/main.ts'],
      ['worker', 'apps/worker/src/main.ts'],
    ] as const) {
      const run = start(entry, { DATABASE_URL: wrong, PORT: String(await freePort()), OPS_PORT: '0' });
      expect(await run.code).toBe(1);
      expect(lines(run.stderr())).toEqual([
        `${name}: PostgreSQL refused the login in DATABASE_URL (role "no_such_role_h31" does not exist): fix its user or password`,
      ]);
      expect(run.output()).not.toContain('hunter2');
    }
  }, 120_000);

  it("when the API's PORT or OPS_PORT is taken, then it exits 1 with one line naming that variable; a misspelt variable gets a warning", async () => {
    const { port, server } = await busyPort();
    try {
      const api = start('apps/api/src/main.ts', { PORT: String(port), OPS_PORT: '0', SYNC_WAIT_MSS: '5' });
      expect(await api.code).toBe(1);
      expect(lines(api.stderr())).toEqual([
        'warning: SYNC_WAIT_MSS is not a leadgen variable and is ignored; did you mean SYNC_WAIT_MS? (docs/configuration.md)',
        `api: port ${port} is in use: stop what listens there, or set PORT to a free port`,
      ]);
      const ops = start('apps/api/src/main.ts', { PORT: String(await freePort()), OPS_PORT: String(port) });
      expect(await ops.code).toBe(1);
      expect(lines(ops.stderr())).toEqual([`api: port ${port} is in use: stop what listens there, or set OPS_PORT to a free port`]);
      expect(ops.output()).not.toMatch(/\n\s+at /);
    } finally {
      server.close();
    }
  }, 90_000);

  it('when Redis does not answer, then the worker says so naming REDIS_URL every few seconds and its readiness names redis', async () => {
    const opsPort = await freePort();
    const worker = start('apps/worker/src/main.ts', { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, OPS_PORT: String(opsPort) });
    try {
      await until(
        () => ((worker.output().match(/Redis does not answer at REDIS_URL/g) ?? []).length >= 2 ? true : null),
        60_000,
        worker.output,
      );
      const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ checks: { redis: 'unavailable' } });
      expect(worker.output()).not.toMatch(/\n\s+at /);
    } finally {
      worker.kill('SIGKILL');
      await worker.code;
    }
  }, 90_000);

  it('when npm start runs, then the API has OPS_PORT and the worker the next; when one of its processes fails, it exits non-zero', async () => {
    const ops = await freePortPair();
    const healthy = start('scripts/start-all.ts', { PORT: String(await freePort()), OPS_PORT: String(ops) });
    try {
      for (const port of [ops, ops + 1]) {
        await until(
          async () =>
            (await fetch(`http://127.0.0.1:${port}/healthz`).then(
              (r) => r.status,
              () => 0,
            )) === 200
              ? true
              : null,
          150_000,
          healthy.output,
        );
      }
    } finally {
      healthy.kill('SIGTERM');
    }
    expect(await healthy.code).toBe(0);

    const { port, server } = await busyPort();
    try {
      // OPS_PORT=0 keeps both operations ports off, so only the API's busy PORT can fail it (a free
      // OPS_PORT's next port is another process's to take meanwhile).
      const failing = start('scripts/start-all.ts', { PORT: String(port), OPS_PORT: '0' });
      expect(await failing.code).toBe(1);
      expect(failing.stderr()).toContain(`api: port ${port} is in use: stop what listens there, or set PORT to a free port`);
      expect(failing.stderr()).toContain('start: the api stopped (1); stopping the others');
    } finally {
      server.close();
    }
  }, 360_000);
});
