// Printing: the side-by-side table, the per-job cost table and the targets. Figures only:
// nothing here decides the exit code (only the correctness checks and a broken harness do).
import { percentile, type LoadResult } from './load';
import type { Measured } from './measure';

export interface SideRuns {
  label: string;
  runs: Measured[];
}

export interface Scenario {
  key: string;
  title: string;
  baseline?: SideRuns;
  /** the durable floor (issue 32): the same durable work the simplest way, fewest transactions */
  floor?: SideRuns;
  service: SideRuns;
}

export interface Summary {
  okInWindow: number;
  okTotal: number;
  errors: number;
  firstError?: string;
  reqPerS: number;
  p50?: number;
  p95?: number;
  perRoundReqPerS: number[];
  /** ms of CPU per successful request */
  cpu: {
    api: number;
    worker: number;
    pg: number | null;
    pgCluster: number | null;
    redis: number | null;
    load: number;
    serviceTotal: number | null;
  };
  sql: number;
  sqlApi: number;
  sqlTx: number;
  redisClient: number;
  redisInfo: number;
  rssApi: number;
  rssWorker: number;
  pgPeak: number | null;
  /** bytes of WAL per successful request */
  walBytes: number | null;
}

/**
 * Requests per second of a closed loop: every success over the whole span, the in-flight drain
 * included. Counting only those finished inside the window would read 0 for a service whose
 * latency is close to the window (seconds at c=50 today), and the drain's lower concurrency
 * errs, if anything, against the service.
 */
export function rate(load: LoadResult): number {
  return load.totalMs === 0 ? 0 : load.okTotal / (load.totalMs / 1000);
}

const nullableSum = (values: Array<number | null>) =>
  values.some((v) => v === null) ? null : values.reduce<number>((s, v) => s + (v ?? 0), 0);

export function summarize(runs: Measured[]): Summary {
  const okInWindow = runs.reduce((s, r) => s + r.load.okInWindow, 0);
  const okTotal = runs.reduce((s, r) => s + r.load.okTotal, 0);
  const totalMs = runs.reduce((s, r) => s + r.load.totalMs, 0);
  const latencies = runs.flatMap((r) => r.load.latencies);
  const per = (v: number) => (okTotal === 0 ? 0 : v / okTotal);
  const perN = (v: number | null) => (v === null || okTotal === 0 ? null : v / okTotal);
  const total = (pick: (m: Measured) => number) => runs.reduce((s, r) => s + pick(r), 0);
  const totalN = (pick: (m: Measured) => number | null) => nullableSum(runs.map(pick));
  const api = per(total((r) => r.cpu.api));
  const worker = per(total((r) => r.cpu.worker));
  const pg = perN(totalN((r) => r.cpu.pg));
  const redis = perN(totalN((r) => r.cpu.redis));
  return {
    okInWindow,
    okTotal,
    errors: runs.reduce((s, r) => s + r.load.errors, 0),
    firstError: runs.find((r) => r.load.firstError)?.load.firstError,
    reqPerS: totalMs === 0 ? 0 : okTotal / (totalMs / 1000),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    perRoundReqPerS: runs.map((r) => rate(r.load)),
    cpu: {
      api,
      worker,
      pg,
      pgCluster: perN(totalN((r) => r.cpu.pgCluster)),
      redis,
      load: per(total((r) => r.cpu.load)),
      serviceTotal: pg === null || redis === null ? null : api + worker + pg + redis,
    },
    sql: per(total((r) => r.sql)),
    sqlApi: per(total((r) => r.sqlApi)),
    sqlTx: per(total((r) => r.sqlTx)),
    redisClient: per(total((r) => r.redisClient)),
    redisInfo: per(total((r) => r.redisInfo)),
    rssApi: Math.max(0, ...runs.map((r) => r.rss.api)),
    rssWorker: Math.max(0, ...runs.map((r) => r.rss.worker)),
    pgPeak: runs.some((r) => r.pgPeak === null) ? null : Math.max(0, ...runs.map((r) => r.pgPeak ?? 0)),
    walBytes: perN(totalN((r) => r.walBytes)),
  };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const fmt = {
  ms: (v: number | undefined | null) =>
    v === undefined || v === null ? '-' : v < 10 ? `${v.toFixed(2)} ms` : v < 100 ? `${v.toFixed(1)} ms` : `${v.toFixed(0)} ms`,
  n: (v: number | null, digits = 1) => (v === null ? '-' : v.toFixed(digits)),
  mb: (bytes: number) => (bytes === 0 ? '-' : `${(bytes / 1024 / 1024).toFixed(0)} MB`),
  rate: (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)),
  ratio: (v: number) => (v >= 0.1 ? v.toFixed(2) : v.toFixed(3)),
};

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

function throughputCell(s: Summary): string {
  const errors = s.errors ? `, ${s.errors} errors` : '';
  return `${fmt.rate(s.reqPerS)} req/s, p50 ${fmt.ms(s.p50)}, p95 ${fmt.ms(s.p95)}${errors}`;
}

export function sideBySide(scenarios: Scenario[]): string {
  const withFloor = scenarios.some((sc) => sc.floor);
  const rows = [
    [
      'scenario',
      'baseline',
      ...(withFloor ? ['durable floor'] : []),
      'service',
      'ratio req/s (per round)',
      ...(withFloor ? ['to floor: req/s, p50 (per round req/s)'] : []),
    ],
  ];
  for (const sc of scenarios) {
    const svc = summarize(sc.service.runs);
    const floor = sc.floor && summarize(sc.floor.runs);
    const floorCells = withFloor ? [floor ? throughputCell(floor) : '-'] : [];
    const toFloor = !withFloor
      ? []
      : [
          floor
            ? `${fmt.ratio(svc.reqPerS / floor.reqPerS)}, ${floor.p50 && svc.p50 ? fmt.ratio(svc.p50 / floor.p50) : '-'} (${svc.perRoundReqPerS
                .map((v, i) => fmt.ratio(v / (floor.perRoundReqPerS[i] ?? NaN)))
                .join(', ')})`
            : '-',
        ];
    if (!sc.baseline) {
      rows.push([sc.title, '-', ...floorCells, throughputCell(svc), '', ...toFloor]);
      continue;
    }
    const base = summarize(sc.baseline.runs);
    const perRound = svc.perRoundReqPerS.map((v, i) => fmt.ratio(v / (base.perRoundReqPerS[i] ?? NaN))).join(', ');
    rows.push([
      `${sc.title} [${sc.baseline.label}]`,
      throughputCell(base),
      ...floorCells,
      throughputCell(svc),
      `${fmt.ratio(svc.reqPerS / base.reqPerS)} (${perRound})`,
      ...toFloor,
    ]);
  }
  return table(rows);
}

export function costTable(scenarios: Scenario[]): string {
  const rows = [
    [
      'per request',
      'n',
      'api',
      'worker',
      'pg',
      'redis',
      'svc total',
      'load gen',
      'pg cluster',
      'SQL api+wrk (tx)',
      'redis sent',
      'redis exec',
      'RSS api',
      'RSS wrk',
      'pg conns',
      'WAL',
    ],
  ];
  const row = (name: string, s: Summary) =>
    rows.push([
      name,
      String(s.okTotal),
      fmt.ms(s.cpu.api),
      fmt.ms(s.cpu.worker),
      fmt.ms(s.cpu.pg),
      fmt.ms(s.cpu.redis),
      fmt.ms(s.cpu.serviceTotal),
      fmt.ms(s.cpu.load),
      fmt.ms(s.cpu.pgCluster),
      s.sql === 0 ? '-' : `${fmt.n(s.sqlApi)}+${fmt.n(s.sql - s.sqlApi)}=${fmt.n(s.sql)} (${fmt.n(s.sqlTx)})`,
      fmt.n(s.redisClient),
      fmt.n(s.redisInfo),
      fmt.mb(s.rssApi),
      fmt.mb(s.rssWorker),
      s.pgPeak === null ? '-' : String(s.pgPeak),
      s.walBytes === null ? '-' : `${fmt.n(s.walBytes / 1024)} KiB`,
    ]);
  for (const sc of scenarios) {
    if (sc.baseline) row(`${sc.key} baseline`, summarize(sc.baseline.runs));
    if (sc.floor) row(`${sc.key} floor`, summarize(sc.floor.runs));
    row(`${sc.key} service`, summarize(sc.service.runs));
  }
  return table(rows);
}

export interface Target {
  what: string;
  measured: string;
  /** null: not measured in this run */
  met: boolean | null;
}

export function targetTable(targets: Target[]): string {
  return table([
    ['target', 'measured', ''],
    ...targets.map((t) => [t.what, t.measured, t.met === null ? 'not run' : t.met ? 'met' : 'MISSED']),
  ]);
}

/**
 * The Redis commands the service's processes sent per successful request, by process kind and name (a Lua script as
 * `evalsha <its name>`), most first: what each costs is in the scripts themselves (the instance's `redis exec`
 * counts each redis.call inside them).
 */
export function redisBreakdown(scenarios: Scenario[]): string[] {
  const lines: string[] = [];
  for (const sc of scenarios)
    for (const side of ['floor', 'service'] as const) {
      const runs = sc[side]?.runs ?? [];
      const ok = runs.reduce((s, r) => s + r.load.okTotal, 0);
      if (ok === 0) continue;
      const perRequest = (pick: (m: Measured) => Record<string, number>) => {
        const byName: Record<string, number> = {};
        for (const r of runs) for (const [name, n] of Object.entries(pick(r))) byName[name] = (byName[name] ?? 0) + n;
        return (
          Object.entries(byName)
            .sort((a, b) => b[1] - a[1])
            .map(([name, n]) => `${name} ${(n / ok).toFixed(2)}`)
            .join(', ') || '-'
        );
      };
      lines.push(`  ${sc.key} ${side}, SQL statements per request: ${perRequest((m) => m.sqlByName)}`);
      lines.push(`  ${sc.key} ${side}, Redis commands sent per request: ${perRequest((m) => m.redisByName)}`);
    }
  return lines;
}
