import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { html, makePlaces, notFound, startFakeDnsServer, startFakeSite, startGooglePlacesFake } from '@leadgen/testing';
import type { FakeDnsServer, FakeSite, GooglePlacesFake } from '@leadgen/testing';
import { generate, pollUntilTerminal, startWorkerProcess, startWorld, type TestWorld } from '../harness';
import { buildAccount } from '../factories';

// The browser tier's Chromium (decision 040) belongs to the worker's shutdown: a worker stopped with SIGTERM
// finishes the page it is rendering within its grace, closes Chromium (closeProviders → enricher.close()), and
// leaves no Chromium process behind. Debian's /usr/bin/chromium through playwright-core, as in production.

const SHELL = `<!doctype html><html><head><title>Nova Physio</title><script type="module" src="/assets/index-4f2a.js"></script></head>
<body><div id="root"></div></body></html>`;
const BUNDLE = `fetch('/api/site.json').then((r) => r.json()).then((site) => {
  document.getElementById('root').innerHTML = '<h1>' + site.name + '</h1><p>Email: <a href="mailto:' + site.email + '">' + site.email + '</a></p>';
});`;

/** The process's children, grandchildren and so on, read from /proc (Linux). */
function descendants(root: number): Array<{ pid: number; command: string }> {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read from the last ')'
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(after[1]));
      commands.set(Number(entry), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      // gone while we looked
    }
  }
  const found: Array<{ pid: number; command: string }> = [];
  const walk = (pid: number): void => {
    for (const [child, parent] of parents)
      if (parent === pid) {
        found.push({ pid: child, command: commands.get(child) ?? '' });
        walk(child);
      }
  };
  walk(root);
  return found;
}

/** Still running: present and not a zombie waiting for a reaper. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('a worker with the browser tier, stopped with SIGTERM', () => {
  const GOOGLE_KEY = 'google-browser-shutdown-key';
  let world: TestWorld;
  let google: GooglePlacesFake;
  let dns: FakeDnsServer;
  let site: FakeSite;
  let worker: ChildProcess | null = null;
  let dataAsked: () => void = () => undefined;
  let releaseData: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (dataAsked = resolve));
  const released = new Promise<void>((resolve) => (releaseData = resolve));

  beforeAll(async () => {
    [google, dns, site] = await Promise.all([
      startGooglePlacesFake(GOOGLE_KEY),
      startFakeDnsServer({ mailDomainsUnder: ['example'] }),
      startFakeSite((request, response) => {
        if (request.url === '/') return html(response, SHELL);
        if (request.url === '/assets/index-4f2a.js') {
          response.writeHead(200, { 'Content-Type': 'text/javascript' });
          return response.end(BUNDLE);
        }
        if (request.url === '/api/site.json') {
          // the page's data is held until the test has sent SIGTERM: the render is under way when the worker stops
          dataAsked();
          void released.then(() => {
            response.writeHead(200, { 'Content-Type': 'application/json' });
            response.end(JSON.stringify({ name: 'Nova Physio', email: 'praxis@nova-physio.example' }));
          });
          return;
        }
        return notFound(response);
      }),
    ]);
    world = await startWorld({ worker: false });
  });
  afterAll(async () => {
    releaseData();
    if (worker && worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGKILL');
      await exited(worker);
    }
    await world?.close();
    await Promise.all([google?.close(), site?.close(), dns?.close()]);
  });

  it('when a page is being rendered, then it is finished within the grace, the job completes with its address, and no Chromium process outlives the worker', async () => {
    const [place] = makePlaces(1, 'physio');
    google.places = [{ ...place!, displayName: { text: 'Nova Physio', languageCode: 'en' }, websiteUri: `http://127.0.0.1:${site.port}/` }];
    const account = await buildAccount(world.db, { credits: 100 });
    const child = startWorkerProcess({
      DATABASE_URL: world.config.database.url,
      REDIS_URL: world.config.redis.url,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
      WORKER_QUEUES: 'google_maps',
      GOOGLE_PLACES_API_KEY: GOOGLE_KEY,
      GOOGLE_PLACES_BASE_URL: google.url,
      DNS_SERVERS: dns.server,
      ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '1',
      ENRICHMENT_BROWSER: '1',
      ENRICHMENT_BROWSER_PAGE_MS: '60000',
      ENRICHMENT_TIMEOUT_MS: '90000',
      SHUTDOWN_GRACE_MS: '60000',
      OPS_PORT: '0',
    });
    worker = child;
    await child.ready;
    const created = await generate(
      world,
      account,
      { category: 'dentist', state: 'US', city: 'Austin', maxResults: 1 },
      { Prefer: 'respond-async' },
    );
    expect(created.status).toBe(202);

    await asked;
    // Chromium is running under the worker and rendering the page
    const chromium = descendants(child.pid!).filter((p) => /chrom/i.test(p.command));
    expect(chromium.length).toBeGreaterThan(0);

    const code = exited(child);
    child.kill('SIGTERM');
    // the page's data arrives after the signal: a Chromium closed at SIGTERM would never render it
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    releaseData();
    expect(await code).toBe(0);
    expect(child.output()).toContain('worker stopped');

    const jobId = created.body.jobId as string;
    const done = await pollUntilTerminal(world, account, jobId, 30_000);
    expect(done.terminal).toMatchObject({ status: 'COMPLETE', deliveredCount: 1 });
    const leads = await world.db.lead.findMany({ where: { jobId } });
    expect(leads.map((lead) => lead.data)).toEqual([
      expect.objectContaining({ businessName: 'Nova Physio', email: 'praxis@nova-physio.example' }),
    ]);
    expect(chromium.filter((p) => alive(p.pid))).toEqual([]);
  }, 180_000);
});
