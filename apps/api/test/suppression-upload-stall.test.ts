import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';

// Issue 31, finding 3 (decision 035): a 100,000-entry suppression upload held the API's event loop 1.3–1.5 s (JSON.parse,
// the body guard, Joi, normalising), so every other account's request waited that long. The API runs in this process:
// its event loop is this test's, measured while the upload is received, read, checked and stored. The upload is built
// and sent by a child process, so that building and sending it costs this loop nothing.
const ENTRIES = 100_000;
const LOOP_CPU_MS = 600;
const STALL_MS = 1_200;

const UPLOADER = `
const emails = Array.from({ length: ${ENTRIES} }, (_, i) => 'Person.' + i + '@Stall-' + (i % 997) + '.example.com');
const body = JSON.stringify({ emails });
process.stdin.once('data', async () => {
  const res = await fetch(process.env.URL, { method: 'PUT', headers: { authorization: process.env.AUTH, 'content-type': 'application/json' }, body });
  process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() }));
});
process.stdout.write('ready\\n');
`;

/** A child process holding the upload built; `send()` uploads it and resolves with the answer. */
async function uploaderProcess(url: string, auth: string): Promise<{ send(): Promise<{ status: number; body: unknown }> }> {
  const child = spawn(process.execPath, ['-e', UPLOADER], {
    env: { ...process.env, URL: url, AUTH: auth },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out === 'ready\n') resolve();
    }),
  );
  return {
    send: () =>
      new Promise((resolve, reject) => {
        out = '';
        child.once('exit', () => {
          try {
            resolve(JSON.parse(out) as { status: number; body: unknown });
          } catch {
            reject(new Error(`the uploader answered ${out}`));
          }
        });
        child.stdin.end('go\n');
      }),
  };
}

/** CPU time the main thread (its event loop) has used, from Linux's /proc (utime + stime, in clock ticks of 10 ms). */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('a 100,000-entry suppression upload', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());
  const url = () => `http://127.0.0.1:${(world.api.server.address() as AddressInfo).port}/api/v1/suppressions`;

  /** An account's upload, ready to send from its own process, after a first small upload of the account's. */
  async function readyUpload() {
    const uploader = await buildAccount(world.db, { credits: 10 });
    // A first upload warms up what runs once per process (the thread's start, the JIT), as a running API has.
    const warm = await world.http
      .put('/api/v1/suppressions')
      .set(uploader.auth)
      .send({ emails: ['warm@up.example'] });
    expect(warm.status).toBe(200);
    return uploaderProcess(url(), uploader.auth.Authorization);
  }

  it('when one account uploads it, then the event loop spends little CPU on it: the parse, the checks and the normalising run elsewhere', async () => {
    const upload = await readyUpload();

    // CPU time, not wall time: on a busy machine the loop's delays are the scheduler's as much as ours.
    const before = mainThreadCpuMs();
    const res = await upload.send();
    const spent = mainThreadCpuMs() - before;

    expect(res).toEqual({ status: 200, body: { added: ENTRIES, counts: { domain: 0, email: ENTRIES + 1, phone: 0 } } });
    // Reading the body on the loop cost 1.3–1.5 s here (decision 031); what is left is receiving the bytes and
    // handing them and two strings between the thread and PostgreSQL.
    expect(spent).toBeLessThan(LOOP_CPU_MS);
  }, 120_000);

  it('when one account uploads it, then another account is answered all along and the event loop is never held for the upload', async () => {
    const other = await buildAccount(world.db, { credits: 10 });
    const upload = await readyUpload();

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let done = false;
    const answer = upload.send().finally(() => (done = true));
    let answered = 0;
    while (!done) {
      expect((await world.http.get('/api/v1/suppressions?limit=1').set(other.auth)).status).toBe(200);
      answered += 1;
    }
    const res = await answer;
    delay.disable();

    expect(res.status).toBe(200);
    expect(answered).toBeGreaterThan(2);
    // Generous: on this shared machine the scheduler alone holds a process for hundreds of milliseconds.
    expect(Math.round(delay.max / 1e6)).toBeLessThan(STALL_MS);
  }, 120_000);
});
