// The memory of a 100,000-lead export: seeds an account with 1,000 finished jobs of 100 leads in a
// database of its own, starts the API in this process, downloads the account's leads as CSV and as
// JSON Lines through HTTP (the client here discards what it reads), and prints this process's peak
// RSS and heap during each download next to the size of what was sent. A figure to read, not a test.
//   npx tsx --expose-gc scripts/bench/export-memory.ts   (EXPORT_BENCH_DATABASE_URL names the database: made fresh, dropped at the end)
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';
import { createAccount, createDatabase, issueApiKey, migrate } from '@leadgen/db';
import { startApi } from '../../apps/api/src/start-api';
import { seedDeliveredLeads } from '../../test/lead-factory';

const url = process.env.EXPORT_BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen_export_bench';
const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

async function dropDatabase(): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  target.pathname = '/postgres';
  const admin = new Client({ connectionString: target.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

function download(port: number, path: string, apiKey: string): Promise<{ bytes: number; ms: number; peakRss: number; peakHeap: number }> {
  const started = Date.now();
  let peakRss = 0;
  let peakHeap = 0;
  // With --expose-gc each sample collects first, so the heap figure is what is kept alive, not garbage not yet collected.
  const gc = (globalThis as { gc?: () => void }).gc;
  const sample = () => {
    gc?.();
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, 100);
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => {
        clearInterval(timer);
        sample();
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        else resolve({ bytes, ms: Date.now() - started, peakRss, peakHeap });
      });
    }).on('error', reject);
  });
}

async function main(): Promise<void> {
  await dropDatabase();
  await migrate(url);
  const config = loadConfig({ ...process.env, DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn', QUEUE_PREFIX: `export-bench-${randomBytes(4).toString('hex')}` });
  const api = await startApi(config);
  const db = createDatabase(url, { poolSize: 2 });
  try {
    // A small account and a large one: flat memory means the same peak for 10,000 leads as for 100,000.
    const accounts: Array<{ leads: number; apiKey: string }> = [];
    for (const jobs of [100, 1000]) {
      const account = await createAccount(db, `export-bench-${jobs}`);
      const { apiKey } = await issueApiKey(db, account.id);
      await seedDeliveredLeads(db, account.id, jobs, 100);
      accounts.push({ leads: jobs * 100, apiKey });
    }
    await db.sql.query('ANALYZE');
    const { port } = api.server.address() as { port: number };
    for (const [format, { leads, apiKey }] of ['csv', 'jsonl'].flatMap((f) => accounts.flatMap((a) => [[f, a] as const, [f, a] as const]))) {
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.memoryUsage();
      const r = await download(port, `/api/v1/leads?format=${format}`, apiKey);
      console.log(
        `${format.padEnd(5)} ${leads.toLocaleString('en')} leads, ${mib(r.bytes)} sent in ${r.ms} ms | RSS ${mib(before.rss)} before, peak ${mib(r.peakRss)} (+${mib(r.peakRss - before.rss)}) | heap ${mib(before.heapUsed)} before, peak ${mib(r.peakHeap)} (+${mib(r.peakHeap - before.heapUsed)})`,
      );
    }
  } finally {
    await db.$disconnect();
    await api.close();
    await dropDatabase();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
