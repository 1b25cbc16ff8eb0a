/**
 * A PostgreSQL URL as libpq reads it, with several hosts (issue 39, decision 045):
 * `postgresql://user:pass@h1:5432,h2:5433/leadgen?target_session_attrs=read-write`. node-postgres reads one
 * host only (WHATWG `URL` refuses the comma), so the URL is split here into one single-host URL per host, which
 * pg and `new URL` read as before; `target_session_attrs` (libpq's names and meanings) says which of them a
 * connection may land on, and `connect_timeout` (seconds) how long one host may take to answer.
 */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresUrl {
  /** one URL per host, in the order given, each without target_session_attrs */
  readonly hostUrls: readonly string[];
  /** `host:port` of each, as given (for logs and messages: never a password) */
  readonly hosts: readonly string[];
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** connect_timeout in ms, null when unset */
  readonly connectTimeoutMs: number | null;
  /** the database's name */
  readonly database: string;
}

const URL_SHAPE = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::(\d{1,5}))?$/;

/** Throws with a message that never repeats the URL (it may hold a password). */
export function parsePostgresUrl(url: string): PostgresUrl {
  const shape = URL_SHAPE.exec(url);
  if (!shape) throw new Error('is not a postgres:// or postgresql:// URL');
  const [, scheme, userInfo = '', hostList, path = '', query = ''] = shape as unknown as string[];
  const hostParts = hostList!.split(',').map((part) => HOST_PORT.exec(part.trim()));
  if (hostParts.some((part) => part === null || !part[1] || (part[2] !== undefined && Number(part[2]) > 65535)))
    throw new Error('must list hosts as `host[:port]` separated by commas');
  // libpq: one port for all hosts, or one per host; none is 5432.
  const ports = hostParts.map((part) => part![2]);
  const given = ports.filter((port) => port !== undefined);
  if (given.length > 0 && given.length !== ports.length && hostParts.length > 1)
    throw new Error('must give a port for every host or for none');
  const params = new URLSearchParams(query!.replace(/^\?/, ''));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs))
    throw new Error(`has target_session_attrs=${attrs}: it must be one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  const timeout = params.get('connect_timeout');
  if (timeout !== null && !/^\d+$/.test(timeout)) throw new Error('has a connect_timeout that is not a whole number of seconds');
  params.delete('target_session_attrs');
  const rest = `${path}${params.size > 0 ? `?${params.toString()}` : ''}`;
  const hosts = hostParts.map((part) => `${part![1]}:${part![2] ?? '5432'}`);
  const hostUrls = hosts.map((host) => `${scheme}${userInfo}${host}${rest}`);
  if (!hostUrls.every((single) => URL.canParse(single))) throw new Error('is not a URL PostgreSQL reads');
  return {
    hostUrls,
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    connectTimeoutMs: timeout === null ? null : Number(timeout) * 1000,
    database: decodeURIComponent(new URL(hostUrls[0]!).pathname.replace(/^\//, '')),
  };
}
