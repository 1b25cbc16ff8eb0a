/**
 * Which thrown errors mean "PostgreSQL or Redis could not be reached or dropped us", so the client
 * gets 503 with Retry-After (and may retry) instead of 500. One place, so the API and the fault suite
 * agree. Shapes as Prisma 7 with @prisma/adapter-pg surfaces them:
 *   PrismaClientKnownRequestError { code: 'P1001' | 'P2010' | ..., meta.driverAdapterError: DriverAdapterError {
 *     cause: { kind: 'DatabaseNotReachable' | 'ConnectionClosed' | 'SocketTimeout' | ...
 *            | 'postgres', code: '57P01', ... } } }
 * and pg / ioredis errors as they are, possibly wrapped in a `cause` chain.
 */

// Node socket errors seen when a store is down, restarting or unreachable.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

// Prisma's own: P1001 can't reach, P1002 timed out, P1008 operation timed out, P1017 server closed
// the connection, P2024 pool timeout, P2028 transaction API (cannot start in time, expired under load).
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);

// @prisma/adapter-pg's `kind`s for a connection that is not there.
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TlsConnectionError']);

/**
 * SQLSTATE: class 08 connection exception; 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
 * connect now (starting up, recovering), 57P05 idle session timeout; 53300 too many connections.
 */
function isConnectionSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || /^57P0[1235]$/.test(code) || code === '53300';
}

// pg and ioredis errors that carry no code, recognised by their fixed messages.
const MESSAGES = [
  /^Connection terminated/i, // pg: "Connection terminated unexpectedly" / "... due to connection timeout"
  /^timeout exceeded when trying to connect/i, // pg-pool
  /^Connection is closed\.?$/i, // ioredis
  /^Stream isn't writeable and enableOfflineQueue options is false/i, // ioredis, Redis away
  /^Reached the max retries per request limit/i, // ioredis MaxRetriesPerRequestError
  /^Server has closed the connection/i, // Prisma's text for ConnectionClosed
  /^Can't reach database server/i,
];

interface Inspectable {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

export function isInfrastructureFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as Inspectable;
  const code = typeof e.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || isConnectionSqlState(code)) return true;
  // 55000 is a broad class; only its "database is not currently accepting connections" (ALLOW_CONNECTIONS
  // false, as during maintenance) is an outage. A missing database (3D000) or a refused login (28P01) is a
  // misconfiguration, and stays a logged 500.
  if (code === '55000' && typeof e.message === 'string' && /not currently accepting connections/i.test(e.message)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.message === 'string' && MESSAGES.some((pattern) => pattern.test(e.message as string))) return true;
  return [e.cause, e.meta?.driverAdapterError].some(
    (inner) => inner !== undefined && inner !== error && isInfrastructureFailure(inner, depth + 1),
  );
}
