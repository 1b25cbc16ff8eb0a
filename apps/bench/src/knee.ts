// The knee: an open-loop load of sync generates at rising rates, from one account or spread over
// several, until the service stops keeping up. Open, not closed: requests go out on a clock
// whatever the answers do, as a busy customer's traffic does, so a serialisation point shows as
// a queue that grows (latency jumps) instead of a loop that politely slows down.
import type { Client } from 'pg';
import { percentile, type HttpClient } from './load';
import { fmt, table } from './report';

export interface KneeStep {
  offered: number;
  /** 200s answered within the step's window, per second */
  achieved: number;
  p50?: number;
  p99?: number;
  /** answered 202 (past SYNC_WAIT_MS), failed, or shed because too many were outstanding */
  late: number;
  errors: number;
  shed: number;
  firstError?: string;
  maxOutstanding: number;
  /** the three most frequent PostgreSQL waits of active backends, sampled every 100 ms: `Lock:transactionid 812, ...` */
  topWait: string;
}

export interface KneeSeries {
  label: string;
  steps: KneeStep[];
  /** the highest offered rate kept up with (see kneeOf); 0 when even the first step was not */
  knee: number;
  /** the largest ratio of one step's p50 to the step before it */
  worstJump: number;
  /** jobs of the series held at creation (past their account's share, decision 020), and how many of them idle slots borrowed */
  held?: { jobs: number; held: number; borrowed: number };
}

/** How many of the jobs created since `since` by these accounts were held at creation, and how many of those were borrowed. */
export async function heldSince(probe: Client, accountIds: readonly string[], since: Date): Promise<NonNullable<KneeSeries['held']>> {
  const { rows } = await probe.query<{ jobs: number; held: number; borrowed: number }>(
    `SELECT count(*)::int AS jobs, count(*) FILTER (WHERE released_at > created_at)::int AS held, count(*) FILTER (WHERE borrowed)::int AS borrowed
       FROM jobs WHERE account_id = ANY($1) AND created_at >= $2`,
    [accountIds, since],
  );
  return rows[0]!;
}

export interface KneeOptions {
  rates: number[];
  stepMs: number;
  /** at most this many requests in flight; past it a request is shed (counted, not sent) */
  maxOutstanding: number;
  /** how long to let a step's stragglers answer before the next step starts */
  drainMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Samples pg_stat_activity's wait events of the bench database's active backends. */
export function sampleWaits(probe: Client): { stop(): Promise<string> } {
  const counts = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await probe
        .query<{ w: string; n: number }>(
          `SELECT wait_event_type || ':' || wait_event AS w, count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'active' AND wait_event IS NOT NULL AND pid <> pg_backend_pid() GROUP BY 1`,
        )
        .catch(() => ({ rows: [] as Array<{ w: string; n: number }> }));
      for (const r of rows) counts.set(r.w, (counts.get(r.w) ?? 0) + r.n);
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
      return top.length ? top.map(([wait, n]) => `${wait} ${n}`).join(', ') : '-';
    },
  };
}

/**
 * One step: `rate` requests a second for `stepMs`, each `send(i)` timed from when it was due
 * (so a load generator that falls behind counts against the service, not in its favour).
 */
async function step(
  client: HttpClient,
  rate: number,
  options: KneeOptions,
  send: (client: HttpClient, i: number) => Promise<{ status: number; body: string }>,
  probe: Client,
): Promise<KneeStep> {
  const latencies: number[] = [];
  let okInWindow = 0;
  let late = 0;
  let errors = 0;
  let shed = 0;
  let firstError: string | undefined;
  let outstanding = 0;
  let maxOutstanding = 0;
  const inflight = new Set<Promise<void>>();
  const waits = sampleWaits(probe);
  const start = performance.now();
  const end = start + options.stepMs;
  const total = Math.round((rate * options.stepMs) / 1000);
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (outstanding >= options.maxOutstanding) {
      shed += 1;
      continue;
    }
    outstanding += 1;
    maxOutstanding = Math.max(maxOutstanding, outstanding);
    const p = send(client, i).then(
      (res) => {
        const t = performance.now();
        if (res.status === 200) {
          latencies.push(t - due);
          if (t <= end) okInWindow += 1;
        } else if (res.status === 202) late += 1;
        else {
          errors += 1;
          firstError ??= `answered ${res.status}: ${res.body.slice(0, 160)}`;
        }
      },
      (error: Error) => {
        errors += 1;
        firstError ??= error.message;
      },
    );
    const tracked = p.finally(() => {
      outstanding -= 1;
      inflight.delete(tracked);
    });
    inflight.add(tracked);
  }
  const drainUntil = performance.now() + options.drainMs;
  while (inflight.size > 0 && performance.now() < drainUntil) await Promise.race([...inflight, sleep(100)]);
  const topWait = await waits.stop();
  // Whatever is still in flight now answers during the next step and is not counted in this one.
  return {
    offered: rate,
    achieved: (okInWindow * 1000) / options.stepMs,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    late: late + inflight.size,
    errors,
    shed,
    firstError,
    maxOutstanding,
    topWait,
  };
}

/**
 * Kept up with: at least 90 % of the offered rate answered 200 within the step, and a p50 within
 * 5x the first step's. The knee is the highest offered rate before the first step that was not.
 */
export function kneeOf(steps: KneeStep[]): { knee: number; worstJump: number } {
  const base = steps[0]?.p50 ?? Infinity;
  let knee = 0;
  for (const s of steps) {
    const ok = s.achieved >= 0.9 * s.offered && (s.p50 ?? Infinity) <= Math.max(5 * base, base + 20);
    if (!ok) break;
    knee = s.offered;
  }
  let worstJump = 1;
  for (let i = 1; i < steps.length; i += 1) {
    const a = steps[i - 1]!.p50;
    const b = steps[i]!.p50;
    if (a && b) worstJump = Math.max(worstJump, b / a);
    else if (a && !b) worstJump = Infinity; // nothing answered in time at all
  }
  return { knee, worstJump };
}

/** Climbs the rates; stops two steps past the first one not kept up with (enough to see how it degrades). */
export async function kneeSeries(
  label: string,
  client: HttpClient,
  options: KneeOptions,
  send: (client: HttpClient, i: number) => Promise<{ status: number; body: string }>,
  probe: Client,
  log: (line: string) => void,
): Promise<KneeSeries> {
  const steps: KneeStep[] = [];
  let pastKnee = 0;
  for (const rate of options.rates) {
    const s = await step(client, rate, options, send, probe);
    steps.push(s);
    log(
      `  knee ${label}: ${rate}/s offered -> ${fmt.rate(s.achieved)}/s, p50 ${fmt.ms(s.p50)}, p99 ${fmt.ms(s.p99)}, outstanding <= ${s.maxOutstanding}${s.late ? `, ${s.late} late` : ''}${s.shed ? `, ${s.shed} shed` : ''}${s.errors ? `, ${s.errors} errors (${s.firstError})` : ''}; top waits ${s.topWait}`,
    );
    if (kneeOf(steps).knee < rate) pastKnee += 1;
    if (pastKnee >= 2) break;
  }
  return { label, steps, ...kneeOf(steps) };
}

/** Every series' steps side by side (one row per offered rate), then the knees and the ratio asked for. */
export function kneeTable(series: KneeSeries[]): string {
  const rates = [...new Set(series.flatMap((s) => s.steps.map((st) => st.offered)))].sort((a, b) => a - b);
  const rows = [['offered/s', ...series.map((s) => s.label)]];
  for (const rate of rates)
    rows.push([
      String(rate),
      ...series.map((s) => {
        const st = s.steps.find((x) => x.offered === rate);
        if (!st) return '-';
        return `${fmt.rate(st.achieved)}/s p50 ${fmt.ms(st.p50)}${st.late + st.shed + st.errors ? ` (${st.late + st.shed + st.errors} not 200)` : ''}`;
      }),
    ]);
  rows.push(['knee', ...series.map((s) => `${s.knee}/s`)]);
  rows.push(['worst p50 step', ...series.map((s) => (Number.isFinite(s.worstJump) ? `x${s.worstJump.toFixed(1)}` : 'no answer'))]);
  rows.push(['top PG waits at the last step', ...series.map((s) => s.steps.at(-1)?.topWait ?? '-')]);
  rows.push([
    'jobs held at creation (borrowed)',
    ...series.map((s) => (s.held ? `${s.held.held} of ${s.held.jobs} (${s.held.borrowed})` : '-')),
  ]);
  return table(rows);
}
