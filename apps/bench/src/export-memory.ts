// The bench's export section: the service API process's memory while it streams an account's leads as
// CSV and JSON Lines (keyset batches from PostgreSQL), beside a bare Express process streaming as many
// lines of the same bytes from memory (baselines/export-stream.ts). RSS is read from /proc: idle once
// after a warm-up, peak every 50 ms during each download. Flat memory: ten times the leads cost no more.
import { get } from 'node:http';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { createDatabase } from '@leadgen/db';
import { buildDeliveredJobs } from '@leadgen/testing';
import { createBenchAccount } from './database';
import type { BenchProcess } from './processes';
import { readRss } from './proc-stats';
import { table, type Target } from './report';

export interface ExportAccount {
  leads: number;
  apiKey: string;
  accountId: string;
}

export interface ExportRun {
  format: 'csv' | 'jsonl';
  leads: number;
  /**
   * copy: PostgreSQL's own COPY of the same rows, rendered in the format, read by a client that keeps nothing (its plan
   * may be parallel: workers render beside the backend); copy1: the same COPY in one process (no parallel workers), as
   * each of the export's chunks runs
   */
  side: 'service' | 'baseline' | 'copy' | 'copy1';
  bytes: number;
  ms: number;
  idleRss: number;
  peakRss: number;
}

const LEADS_PER_JOB = 100;
const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const signed = (bytes: number) => `${bytes < 0 ? '-' : '+'}${mib(Math.abs(bytes))}`;

/** One account per size, its leads written straight into the bench database (finished jobs of 100 leads). */
export async function seedExportAccounts(url: string, sizes: number[]): Promise<ExportAccount[]> {
  const db = createDatabase(url, { poolSize: 1 });
  try {
    const accounts: ExportAccount[] = [];
    for (const leads of sizes) {
      const { accountId, apiKey } = await createBenchAccount(url, `bench-export-${leads}`);
      await buildDeliveredJobs(db, accountId, Math.ceil(leads / LEADS_PER_JOB), LEADS_PER_JOB);
      accounts.push({ leads, apiKey, accountId });
    }
    await db.sql.query('ANALYZE');
    return accounts;
  } finally {
    await db.$disconnect();
  }
}

/** Downloads `url` and discards it, sampling the RSS of the process serving it every 50 ms. */
function download(url: string, headers: Record<string, string>, pid: number): Promise<{ bytes: number; ms: number; peakRss: number }> {
  let peakRss = readRss(pid) ?? 0;
  const sample = () => (peakRss = Math.max(peakRss, readRss(pid) ?? 0));
  const timer = setInterval(sample, 50);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => {
        clearInterval(timer);
        sample();
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        else resolve({ bytes, ms: performance.now() - started, peakRss });
      });
    }).on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
  });
}

// The floor: the whole selection in one COPY, each line rendered as the export renders it (lead-export-copy.ts, the
// JSON Lines line or lead_csv_row), in the export's order, its bytes counted and dropped by the bench.
const COPY_LINE = {
  jsonl: `'{"jobId":' || to_json(j.id)::text || ',"resultSetId":' || to_json(j.result_set_id)::text || ',"position":' || l.position
    || ',"deliveredAt":"' || to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","lead":' || l.data::text || '}'`,
  csv: `lead_csv_row(j.id, j.result_set_id, l.position, l.created_at, l.data)`,
};

async function copyFloor(
  url: string,
  accountId: string,
  format: 'csv' | 'jsonl',
  oneProcess = false,
): Promise<{ bytes: number; ms: number }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET jit = off'); // as the export's chunks run
    if (oneProcess) await client.query('SET max_parallel_workers_per_gather = 0');
    const started = performance.now();
    const stream = client.query(
      copyTo(
        `COPY (SELECT ${COPY_LINE[format]} FROM jobs j JOIN leads l ON l.job_id = j.id WHERE j.account_id = '${accountId.replace(/'/g, "''")}'
               ORDER BY j.created_at, j.id, l.position) TO STDOUT (FORMAT binary)`,
      ),
    );
    let bytes = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) bytes += chunk.length;
    return { bytes, ms: performance.now() - started };
  } finally {
    await client.end();
  }
}

/**
 * A process's RSS rarely shrinks, so what is compared is its high-water mark: each side downloads the
 * smallest selection once to warm up (lazy imports, JIT), its idle RSS is read, then every size is
 * downloaded from the smallest up, both formats, the service and then the baseline with the bytes the
 * service sent (the other way round on even rounds). Flat: the peak does not climb with the size.
 */
export async function measureExports(options: {
  databaseUrl: string;
  service: { proc: BenchProcess; origin: string };
  baseline: { proc: BenchProcess; origin: string };
  accounts: ExportAccount[];
  rounds: number;
  log: (line: string) => void;
}): Promise<ExportRun[]> {
  const accounts = [...options.accounts].sort((a, b) => a.leads - b.leads);
  const service = (format: 'csv' | 'jsonl', account: ExportAccount) =>
    download(
      `${options.service.origin}/api/v1/leads?format=${format}`,
      { authorization: `Bearer ${account.apiKey}` },
      options.service.proc.pid,
    );
  const baseline = (leads: number, bytes: number) =>
    download(`${options.baseline.origin}/export?rows=${leads}&bytes=${bytes}`, {}, options.baseline.proc.pid);

  for (const format of ['csv', 'jsonl'] as const) {
    const warm = await service(format, accounts[0]!);
    await baseline(accounts[0]!.leads, warm.bytes);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = { service: readRss(options.service.proc.pid) ?? 0, baseline: readRss(options.baseline.proc.pid) ?? 0 };
  options.log(`  export: idle RSS after a warm-up download: service API ${mib(idle.service)}, baseline ${mib(idle.baseline)}`);

  const runs: ExportRun[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const account of accounts) {
      for (const format of ['csv', 'jsonl'] as const) {
        // The baseline streams the service's size: on even rounds it goes first, with the size seen before.
        const known = runs.find((r) => r.side === 'service' && r.format === format && r.leads === account.leads)?.bytes;
        const order = round % 2 === 0 && known ? (['baseline', 'service'] as const) : (['service', 'baseline'] as const);
        let bytes = known ?? 0;
        for (const side of order) {
          const r = side === 'service' ? await service(format, account) : await baseline(account.leads, bytes);
          if (side === 'service') bytes = r.bytes;
          runs.push({ format, leads: account.leads, side, bytes: r.bytes, ms: r.ms, idleRss: idle[side], peakRss: r.peakRss });
          options.log(
            `  round ${round} export ${format.padEnd(5)} ${account.leads.toLocaleString('en').padStart(7)} ${side.padEnd(8)} ${mib(r.bytes)} in ${r.ms.toFixed(0)} ms, peak RSS ${mib(r.peakRss)}`,
          );
        }
        for (const side of ['copy', 'copy1'] as const) {
          const floor = await copyFloor(options.databaseUrl, account.accountId, format, side === 'copy1');
          runs.push({ format, leads: account.leads, side, bytes: floor.bytes, ms: floor.ms, idleRss: 0, peakRss: 0 });
          options.log(
            `  round ${round} export ${format.padEnd(5)} ${account.leads.toLocaleString('en').padStart(7)} ${side === 'copy' ? 'COPY    ' : 'COPY, 1p'} ${mib(floor.bytes)} in ${floor.ms.toFixed(0)} ms`,
          );
        }
      }
    }
  }
  return runs;
}

interface Cell {
  bytes: number;
  ms: number;
  idleRss: number;
  peakRss: number;
}

/** Per format, size and side over the rounds: the highest peak and the fastest time. */
function cells(runs: ExportRun[]): Map<string, Cell> {
  const out = new Map<string, Cell>();
  for (const r of runs) {
    const id = `${r.format}/${r.leads}/${r.side}`;
    const prior = out.get(id);
    out.set(id, {
      bytes: r.bytes,
      ms: Math.min(r.ms, prior?.ms ?? Infinity),
      idleRss: r.idleRss,
      peakRss: Math.max(r.peakRss, prior?.peakRss ?? 0),
    });
  }
  return out;
}

const growth = (c: Cell | undefined) => (c ? c.peakRss - c.idleRss : 0);

export function exportTable(runs: ExportRun[]): string {
  const by = cells(runs);
  const sizes = [...new Set(runs.map((r) => r.leads))].sort((a, b) => a - b);
  const rows = [
    [
      'export (whole account)',
      'sent',
      'baseline: peak RSS (over idle), time',
      'service: peak RSS (over idle), time',
      'growth ratio',
      'COPY of the same rows',
      'service / COPY (target <= 2)',
      'COPY in one process',
      'service / COPY in one process',
    ],
  ];
  const cell = (c: Cell | undefined) => (c ? `${mib(c.peakRss)} (${signed(growth(c))}), ${c.ms.toFixed(0)} ms` : '-');
  for (const leads of sizes) {
    for (const format of ['csv', 'jsonl'] as const) {
      const svc = by.get(`${format}/${leads}/service`);
      const base = by.get(`${format}/${leads}/baseline`);
      // Below 1 MiB the baseline's growth is sampling noise: a ratio to it would mean nothing.
      const ratio = svc && base && growth(base) >= MiB ? `${(growth(svc) / growth(base)).toFixed(2)}x` : '-';
      const copy = by.get(`${format}/${leads}/copy`);
      const copy1 = by.get(`${format}/${leads}/copy1`);
      rows.push([
        `${format} ${leads.toLocaleString('en')} leads`,
        svc ? mib(svc.bytes) : '-',
        cell(base),
        cell(svc),
        ratio,
        copy ? `${copy.ms.toFixed(0)} ms` : '-',
        copy && svc ? `${(svc.ms / copy.ms).toFixed(2)}x` : '-',
        copy1 ? `${copy1.ms.toFixed(0)} ms` : '-',
        copy1 && svc ? `${(svc.ms / copy1.ms).toFixed(2)}x` : '-',
      ]);
    }
  }
  return table(rows);
}

/**
 * The export target: an export of 100,000 leads streams with the process's memory flat, read as the
 * service's peak RSS over idle after the largest exports against after the smallest (ten times the
 * leads: at most 16 MiB more), the baseline's beside it. Judged only when the sizes are 10,000 and
 * 100,000 (not in --quick).
 */
export function exportTarget(runs: ExportRun[]): Target {
  const what = 'export of 100,000 leads: RSS flat (<= +16 MiB over a tenth)';
  if (runs.length === 0) return { what, measured: '-', met: null };
  const by = cells(runs);
  const sizes = [...new Set(runs.map((r) => r.leads))].sort((a, b) => a - b);
  const small = sizes[0]!;
  const large = sizes.at(-1)!;
  const peakGrowth = (leads: number, side: string) =>
    Math.max(...(['csv', 'jsonl'] as const).map((f) => growth(by.get(`${f}/${leads}/${side}`))));
  const measured = `service ${signed(peakGrowth(large, 'service'))} over idle at ${large.toLocaleString('en')}, ${signed(peakGrowth(small, 'service'))} at ${small.toLocaleString('en')}; baseline ${signed(peakGrowth(large, 'baseline'))}, ${signed(peakGrowth(small, 'baseline'))}`;
  return {
    what,
    measured,
    met: large === 100_000 && small * 10 === large ? peakGrowth(large, 'service') - peakGrowth(small, 'service') <= 16 * MiB : null,
  };
}
