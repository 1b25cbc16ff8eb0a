import { Client, type ClientConfig } from 'pg';
import { parsePostgresUrl, type PostgresUrl, type TargetSessionAttrs } from '@leadgen/config';
import { refusedLoginReason } from './connection-failure';

/**
 * A multi-host DATABASE_URL (decision 045): libpq picks, among its hosts, one whose session fits
 * `target_session_attrs`; node-postgres reads one host. This does libpq's part for the pool: the first host in
 * order whose server fits is chosen once, every new connection goes there, and a connection that fails (refused,
 * dropped, or landing on a server that no longer fits) makes the next one look again. While no host fits
 * (between a primary's death and its standby's promotion) a connection fails with NoSuitableHostError,
 * SQLSTATE 08001 as libpq's clients report it, which the API answers 503 with Retry-After.
 */
export class NoSuitableHostError extends Error {
  readonly code = '08001';
  readonly severity = 'FATAL';
  constructor(attrs: TargetSessionAttrs, reasons: readonly string[]) {
    super(`no PostgreSQL host fits target_session_attrs=${attrs}: ${reasons.join('; ')}`);
    this.name = 'NoSuitableHostError';
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

interface Probe {
  fits: boolean;
  /** it answered (whatever it is) */
  reachable: boolean;
  reason: string;
  /** a misconfiguration PostgreSQL answered (a refused login, a database that does not exist): thrown as it is */
  refused?: unknown;
}

function fitsAttrs(attrs: TargetSessionAttrs, state: { standby: boolean; readOnly: boolean }): boolean {
  switch (attrs) {
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.standby;
    case 'standby':
    case 'prefer-standby':
      return state.standby;
    default:
      return true;
  }
}

/** One connection to one host: does its server fit? (libpq asks `SHOW transaction_read_only` and pg_is_in_recovery()) */
async function probe(hostUrl: string, host: string, attrs: TargetSessionAttrs, timeoutMs: number): Promise<Probe> {
  const client = new Client({ connectionString: hostUrl, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(
      "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only",
    );
    const state = { standby: rows[0]!.standby, readOnly: rows[0]!.read_only };
    return {
      fits: fitsAttrs(attrs, state),
      reachable: true,
      reason: `${host}: ${state.standby ? 'standby' : state.readOnly ? 'read-only' : 'read-write'}`,
    };
  } catch (error) {
    return {
      fits: false,
      reachable: false,
      reason: `${host}: ${(error as Error).message}`,
      refused: refusedLoginReason(error) || (error as { code?: unknown }).code === '3D000' ? error : undefined,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The index of the first host (in the URL's order) whose server fits, asking all at once; a refused login is
 * thrown as PostgreSQL gave it (a misconfiguration, never an outage), none fitting is NoSuitableHostError.
 */
export async function selectHost(url: PostgresUrl, attrs: TargetSessionAttrs = url.targetSessionAttrs): Promise<number> {
  const timeoutMs = url.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const probes = url.hostUrls.map((hostUrl, i) => probe(hostUrl, url.hosts[i]!, attrs, timeoutMs));
  const results: Probe[] = [];
  for (const [i, pending] of probes.entries()) {
    const result = await pending;
    if (result.fits) {
      void Promise.allSettled(probes);
      return i;
    }
    results.push(result);
  }
  // libpq's prefer-standby: a standby if one answers, else any host that does.
  const reachable = results.findIndex((r) => r.reachable);
  if (attrs === 'prefer-standby' && reachable >= 0) return reachable;
  const refused = results.find((r) => r.refused !== undefined);
  if (refused) throw refused.refused;
  throw new NoSuitableHostError(
    attrs,
    results.map((r) => r.reason),
  );
}

/**
 * The single-host URL of the host that takes writes now (db:migrate's target), whatever target_session_attrs says;
 * asked through each server's `postgres` database, as db:migrate may be about to create the URL's.
 */
export async function writableHostUrl(databaseUrl: string): Promise<string> {
  const url = parsePostgresUrl(databaseUrl);
  if (url.hostUrls.length === 1) return url.hostUrls[0]!;
  const server = (hostUrl: string) => Object.assign(new URL(hostUrl), { pathname: '/postgres' }).toString();
  return url.hostUrls[await selectHost({ ...url, hostUrls: url.hostUrls.map(server) }, 'read-write')]!;
}

/** Which host new connections go to: chosen once, chosen again after a connection to it fails. */
export class HostSelector {
  private chosen: number | null = null;
  private looking: Promise<number> | null = null;
  /** how many times a host was chosen (a failover is one more) */
  selections = 0;

  /** `onChosen`: told each time a host is chosen (the first, then after each failover), for a log line */
  constructor(
    readonly url: PostgresUrl,
    private readonly onChosen: (host: string, selections: number) => void = () => undefined,
  ) {}

  host(): Promise<number> {
    if (this.chosen !== null) return Promise.resolve(this.chosen);
    this.looking ??= selectHost(this.url).then(
      (i) => {
        this.chosen = i;
        this.selections += 1;
        this.looking = null;
        this.onChosen(this.url.hosts[i]!, this.selections);
        return i;
      },
      (error: unknown) => {
        this.looking = null;
        throw error;
      },
    );
    return this.looking;
  }

  /** a connection to host `i` failed: the next one looks again (unless another already did) */
  forget(i: number): void {
    if (this.chosen === i) this.chosen = null;
  }
}

type Callback = (error: Error | null, client?: Client) => void;
interface ParameterStatus {
  parameterName: string;
  parameterValue: string;
}

/**
 * pg's Client for the pool (`Pool({ Client })`), connecting to the selector's host. Besides the selector's probe,
 * each connection checks what its server reports at login (in_hot_standby, default_transaction_read_only, since
 * PostgreSQL 14, as libpq does), so a connection never lands on a server that was demoted since.
 */
export function failoverClient(selector: HostSelector): new (config?: ClientConfig) => Client {
  const attrs = selector.url.targetSessionAttrs;
  return class FailoverClient extends Client {
    private hostIndex = -1;
    private readonly reported = new Map<string, string>();

    constructor(config?: ClientConfig) {
      // connect_timeout bounds each connection as it bounds the probe (pg itself does not read it from the URL); it
      // covers the login only, not the wait for a free connection of the pool.
      super({
        ...config,
        connectionTimeoutMillis: config?.connectionTimeoutMillis ?? selector.url.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
      const connection = (this as unknown as { connection: NodeJS.EventEmitter }).connection;
      connection.on('parameterStatus', (msg: ParameterStatus) => this.reported.set(msg.parameterName, msg.parameterValue));
      // A connection that dies (its server killed or restarted) sends the next connection looking.
      this.on('error', () => selector.forget(this.hostIndex));
    }

    private fits(): boolean {
      const standby = this.reported.get('in_hot_standby');
      const readOnly = this.reported.get('default_transaction_read_only');
      if (standby === undefined || readOnly === undefined) return true; // not reported (before 14, a proxy): the probe said
      return fitsAttrs(attrs === 'prefer-standby' ? 'any' : attrs, {
        standby: standby === 'on',
        readOnly: readOnly === 'on' || standby === 'on',
      });
    }

    private async open(): Promise<void> {
      const i = await selector.host();
      this.hostIndex = i;
      const target = new URL(selector.url.hostUrls[i]!);
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      const port = Number(target.port || '5432');
      const self = this as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
      self.host = self.connectionParameters.host = host;
      self.port = self.connectionParameters.port = port;
      try {
        await super.connect();
      } catch (error) {
        selector.forget(i);
        throw error;
      }
      if (!this.fits()) {
        selector.forget(i);
        await this.end().catch(() => undefined);
        throw new NoSuitableHostError(attrs, [`${selector.url.hosts[i]}: no longer fits`]);
      }
    }

    override connect(): Promise<Client>;
    override connect(callback: Callback): void;
    override connect(callback?: Callback): Promise<Client> | void {
      const opened = this.open().then(() => this as Client);
      if (!callback) return opened;
      opened.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
    }
  };
}

/** pg Pool options for a DATABASE_URL with several hosts or a target_session_attrs; null for a plain one. */
export function failoverPoolOptions(
  databaseUrl: string,
  onChosen?: (host: string, selections: number) => void,
): { connectionString: string; Client: new () => Client; selector: HostSelector } | null {
  const url = parsePostgresUrl(databaseUrl);
  if (url.hostUrls.length === 1 && url.targetSessionAttrs === 'any') return null;
  const selector = new HostSelector(url, onChosen);
  return { connectionString: url.hostUrls[0]!, Client: failoverClient(selector) as new () => Client, selector };
}
