import type { Pool, PoolClient } from 'pg';

/**
 * Reads that may be slightly old (decision 047): listings, exports and the operator board read through `db.reads`,
 * which is the primary's pool itself while DATABASE_READ_URL is unset, and otherwise this router. The rule:
 *
 * - a read goes to the replica while its last measured lag is at most DATABASE_READ_MAX_LAG_MS, else to the primary;
 * - the lag is measured at most once per `sampleEveryMs`, in the background of the reads (only the first waits for
 *   it), so a verdict is at most that period (and one measure) old: the primary's WAL position
 *   (`pg_current_wal_lsn()`), then whether the replica has replayed up to it. Replayed: the replica holds every commit
 *   made before the sample began, so the lag is 0. Not yet: the lag is the replica's clock minus the commit time of
 *   the last transaction it replayed (`pg_last_xact_replay_timestamp()`), an upper bound of what it misses. A
 *   replica that cannot say (never replayed a transaction), does not answer, or is no standby at all, is not used;
 * - a read the replica fails (its connection lost, a query cancelled by a recovery conflict) is run again on the
 *   primary once, and the replica is left alone until the next sample says it is back.
 *
 * Writes, and the reads that must see their own writes (a job's GET, idempotency, keys, credits), never come here:
 * they use `db.sql`, the primary's pool, as before.
 */
export interface ReadPool {
  query: Pool['query'];
  connect(): Promise<PoolClient>;
}

/** What a listing reads from: `db.reads` (the replica when fit) or the Database itself (the primary). */
export interface ReadSide {
  readonly sql: ReadPool;
}

/** The reads of one request that must agree (a job's page, then its download's chunks): their side decided once. */
export interface PinnedReads extends ReadSide {
  /** the replica was chosen (it still gives a failed read to the primary); false: the primary, for every read */
  readonly onReplica: boolean;
}

export interface ReplicaVerdict {
  /** the replica serves reads until the next sample */
  useReplica: boolean;
  /** measured lag in ms; null when it could not be measured */
  lagMs: number | null;
  /** why not, when not */
  reason: string | null;
}

export interface ReadRouterOptions {
  /** the longest lag a read may see before reads go to the primary (ms) */
  maxLagMs: number;
  /** how often the lag is measured at most (ms) */
  sampleEveryMs?: number;
  /** told each time the verdict changes side (replica → primary or back), for a log line */
  onVerdict?: (verdict: ReplicaVerdict) => void;
}

const PRIMARY_POSITION = 'SELECT pg_current_wal_lsn()::text AS lsn';
// $1: the primary's position. `caught_up`: the replica replayed everything up to it.
const REPLICA_LAG = `
SELECT pg_is_in_recovery() AS standby,
       coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS caught_up,
       (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_last_replayed_ms`;

// A read the replica could not serve that the primary can: a connection lost or refused (class 08, 57P01–57P03: the
// server shutting down or starting), or a query cancelled by a conflict with recovery (40001 on a standby).
const RETRY_ON_PRIMARY = new Set(['40001', '57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
function replicaUnfit(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || RETRY_ON_PRIMARY.has(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(message);
}

export class ReadRouter implements ReadPool {
  private verdict: ReplicaVerdict & { at: number } = { useReplica: false, lagMs: null, reason: 'not measured yet', at: -Infinity };
  private sampling: Promise<boolean> | null = null;
  private readonly sampleEveryMs: number;
  /** reads each side served, for tests and the operations port */
  readonly served = { replica: 0, primary: 0, retriedOnPrimary: 0 };

  constructor(
    private readonly primary: Pool,
    private readonly replica: Pool,
    private readonly options: ReadRouterOptions,
  ) {
    this.sampleEveryMs = options.sampleEveryMs ?? 1_000;
  }

  /** The last verdict (measured at most `sampleEveryMs` ago, or about to be measured again). */
  get lastVerdict(): ReplicaVerdict {
    const { useReplica, lagMs, reason } = this.verdict;
    return { useReplica, lagMs, reason };
  }

  /** DATABASE_READ_MAX_LAG_MS: past this lag, reads go to the primary */
  get maxLagMs(): number {
    return this.options.maxLagMs;
  }

  /**
   * The verdict as of now, for the metrics' scrape: measured again first (and waited for) when the last measure is
   * older than `sampleEveryMs`, so a process that serves no listing still tells how far behind its replica is.
   */
  async measure(): Promise<ReplicaVerdict> {
    await this.useReplica();
    await this.sampling;
    return this.lastVerdict;
  }

  /**
   * Whether the next read goes to the replica; measures the lag again when the last measure is older than
   * sampleEveryMs. Only the first read waits for a measure: the others take the last verdict while the next is
   * measured, so a replica that does not answer (a measure waits up to its connect timeout) holds no read.
   */
  useReplica(): Promise<boolean> {
    if (Date.now() - this.verdict.at >= this.sampleEveryMs)
      this.sampling ??= this.sample().finally(() => {
        this.sampling = null;
      });
    if (this.verdict.at === -Infinity) return this.sampling!;
    return Promise.resolve(this.verdict.useReplica);
  }

  private async sample(): Promise<boolean> {
    let verdict: ReplicaVerdict;
    try {
      const { rows: position } = await this.primary.query<{ lsn: string }>(PRIMARY_POSITION);
      const { rows } = await this.replica.query<{ standby: boolean; caught_up: boolean; since_last_replayed_ms: number | null }>(
        REPLICA_LAG,
        [position[0]!.lsn],
      );
      const row = rows[0]!;
      const lagMs = !row.standby ? null : row.caught_up ? 0 : row.since_last_replayed_ms;
      verdict =
        lagMs === null
          ? {
              useReplica: false,
              lagMs,
              reason: row.standby ? 'the replica has replayed no transaction yet' : 'DATABASE_READ_URL is no standby',
            }
          : lagMs <= this.options.maxLagMs
            ? { useReplica: true, lagMs, reason: null }
            : { useReplica: false, lagMs, reason: `the replica lags ${Math.round(lagMs)} ms (more than ${this.options.maxLagMs})` };
    } catch (error) {
      verdict = { useReplica: false, lagMs: null, reason: `the lag could not be measured: ${(error as Error).message}` };
    }
    this.settle(verdict);
    return verdict.useReplica;
  }

  private settle(verdict: ReplicaVerdict): void {
    const changed = verdict.useReplica !== this.verdict.useReplica || this.verdict.at === -Infinity;
    this.verdict = { ...verdict, at: Date.now() };
    if (changed) this.options.onVerdict?.(verdict);
  }

  /** The replica failed a read: the primary serves until the next sample. */
  private setAside(error: unknown): void {
    this.settle({ useReplica: false, lagMs: null, reason: `a read failed on the replica: ${(error as Error).message}` });
  }

  query: Pool['query'] = (async (...args: unknown[]) => this.queryOn(await this.useReplica(), args)) as Pool['query'];

  /** A connection for several statements (an export's COPY chunk): the replica's while it is fit, else the primary's. */
  async connect(): Promise<PoolClient> {
    return this.connectOn(await this.useReplica());
  }

  /**
   * The side of the next read, kept for the reads made through what it returns: pinned to the primary, they never move to
   * the replica (which may not have what the first read saw); pinned to the replica, they go to the primary once it is set aside.
   */
  async pin(): Promise<PinnedReads> {
    const onReplica = await this.useReplica();
    const query = ((...args: unknown[]) => this.queryOn(onReplica, args)) as Pool['query'];
    return { onReplica, sql: { query, connect: () => this.connectOn(onReplica) } };
  }

  private async queryOn(onReplica: boolean, args: unknown[]): Promise<unknown> {
    const call = (pool: Pool) => (pool.query as (...a: unknown[]) => Promise<unknown>).apply(pool, args);
    // A side pinned to the replica moves to the primary once the replica is set aside (it holds everything the replica did).
    if (onReplica && this.verdict.useReplica) {
      try {
        const result = await call(this.replica);
        this.served.replica += 1;
        return result;
      } catch (error) {
        if (!replicaUnfit(error)) throw error;
        this.setAside(error);
        this.served.retriedOnPrimary += 1;
      }
    }
    this.served.primary += 1;
    return call(this.primary);
  }

  private async connectOn(onReplica: boolean): Promise<PoolClient> {
    if (onReplica && this.verdict.useReplica) {
      try {
        const client = await this.replica.connect();
        this.served.replica += 1;
        return client;
      } catch (error) {
        this.setAside(error);
        this.served.retriedOnPrimary += 1;
      }
    }
    this.served.primary += 1;
    return this.primary.connect();
  }
}
