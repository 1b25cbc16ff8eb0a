import { escapeLiteral } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { LeadFilter, LeadKeyset } from './lead-listing';
import type { ReadSide } from './read-replica';

/**
 * Exports at the database's speed (issue 39, decision 043): PostgreSQL renders each exported line itself (a JSON Lines
 * line, or a CSV row through prisma/functions/lead_csv_row.sql) and sends it by `COPY (SELECT …) TO STDOUT` in
 * PostgreSQL's binary COPY format, whose length-prefixed fields hand the API the line's bytes as they will go out: no
 * row object, no JSON parse, no string built per lead in the API, only a slice. A chunk is a keyset page of `limit`
 * leads, read whole before it is written (so a slow client holds no statement, snapshot or connection, and memory is
 * one or two chunks whatever the export's size); the next chunk's keyset is the last line's.
 */
export type ExportLineFormat = 'jsonl' | 'csv';

export interface ExportChunk {
  /** the lines' bytes, each ending with its line break */
  lines: Buffer[];
  rows: number;
  bytes: number;
  /** the last line's place (the next chunk starts after it); null when the chunk is empty */
  last: LeadKeyset | null;
}

// The ISO 8601 form Date#toISOString writes (timestamptz(3): milliseconds are exact).
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The line of one lead, as presentLeadItemJson (JSON Lines) or the CSV export writes it. */
function lineOf(format: ExportLineFormat): string {
  if (format === 'csv') return `lead_csv_row(j.id, j.result_set_id, l.position, l.created_at, l.data)`;
  return `'{"jobId":' || to_json(j.id)::text || ',"resultSetId":' || to_json(j.result_set_id)::text || ',"position":' || l.position
    || ',"deliveredAt":"' || ${iso('l.created_at')} || '","lead":' || l.data::text || E'}\\n'`;
}

const literal = (value: string | null) => (value === null ? 'NULL' : escapeLiteral(value));
const timestamp = (value: Date | null) => (value === null ? 'NULL' : `${escapeLiteral(value.toISOString())}::timestamptz`);
const integer = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
};

/**
 * The account's leads after `after`, oldest job first (ACCOUNT_LEADS of lead-listing.ts, the same walk through
 * jobs(account_id, created_at) and leads(job_id, position)). COPY takes no bind parameters: the values are literals.
 */
export function copyAccountLeads(
  db: ReadSide,
  accountId: string,
  filter: LeadFilter,
  after: LeadKeyset | null,
  limit: number,
  format: ExportLineFormat,
): Promise<ExportChunk> {
  const since = timestamp(after?.jobCreatedAt ?? null);
  return copyChunk(
    db,
    `SELECT ${lineOf(format)}, ${iso('j.created_at')}, j.id, l.position
     FROM jobs j JOIN leads l ON l.job_id = j.id AND l.job_created_at IN ('-infinity', j.created_at)
     WHERE j.account_id = ${literal(accountId)}
       ${filter.source ? `AND j.source::text = ${literal(filter.source)}` : ''}
       ${filter.jobId ? `AND j.id = ${literal(filter.jobId)}` : ''}
       ${filter.createdAfter ? `AND j.created_at >= ${timestamp(filter.createdAfter)}` : ''}
       ${filter.createdBefore ? `AND j.created_at < ${timestamp(filter.createdBefore)}` : ''}
       ${after ? `AND j.created_at >= ${since} AND (j.created_at, j.id, l.position) > (${since}, ${literal(after.jobId)}, ${integer(after.position)})` : ''}
     ORDER BY j.created_at, j.id, l.position
     LIMIT ${integer(limit)}`,
  );
}

/** One result set's leads after position `after`, in delivery order; empty for a job the account does not have. */
export function copyResultSetLeads(
  db: ReadSide,
  accountId: string,
  by: 'job' | 'resultSet',
  id: string,
  after: number,
  limit: number,
  format: ExportLineFormat,
): Promise<ExportChunk> {
  return copyChunk(
    db,
    `SELECT ${lineOf(format)}, ${iso('j.created_at')}, j.id, l.position
     FROM jobs j JOIN leads l ON l.job_id = j.id AND l.job_created_at IN ('-infinity', j.created_at)
     WHERE j.${by === 'job' ? 'id' : 'result_set_id'} = ${literal(id)} AND j.account_id = ${literal(accountId)}
       AND l.position > ${integer(after)}
     ORDER BY l.position
     LIMIT ${integer(limit)}`,
  );
}

// PostgreSQL's binary COPY: an 11-byte signature, flags and an extension area, then per row a 16-bit field count
// and each field's 32-bit length and bytes, then -1 (https://www.postgresql.org/docs/15/sql-copy.html, "Binary Format").
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

async function copyChunk(db: ReadSide, select: string): Promise<ExportChunk> {
  const client = await db.sql.connect();
  try {
    // No JIT: a chunk's plan is cheap to run but its estimated cost (thousands of rows, each a long expression) would
    // set off JIT compilation, seconds a chunk. SET LOCAL: it ends with the transaction (and behind PgBouncer too).
    await client.query('BEGIN; SET LOCAL jit = off');
    const stream = client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`));
    const parser = new RowParser();
    for await (const data of stream as AsyncIterable<Buffer>) parser.push(data);
    await client.query('COMMIT');
    return parser.chunk();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Reads binary COPY rows of four fields (line, job created_at, job id, position) as they arrive. */
class RowParser {
  private pending: Buffer = Buffer.alloc(0);
  private headerRead = false;
  private lastKey: Buffer[] | null = null;
  readonly lines: Buffer[] = [];
  bytes = 0;

  push(data: Buffer): void {
    let buffer = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    let at = 0;
    if (!this.headerRead) {
      if (buffer.length < 19) {
        this.pending = buffer;
        return;
      }
      if (!buffer.subarray(0, 11).equals(SIGNATURE)) throw new Error('COPY: not PostgreSQL binary COPY data');
      at = 19 + buffer.readInt32BE(15);
      this.headerRead = true;
    }
    for (;;) {
      if (buffer.length - at < 2) break;
      const fields = buffer.readInt16BE(at);
      if (fields === -1) {
        at = buffer.length;
        break;
      }
      // The whole row must be here: walk its fields' lengths first.
      let end = at + 2;
      const spans: Array<[number, number]> = [];
      for (let f = 0; f < fields; f++) {
        if (buffer.length - end < 4) break;
        const length = buffer.readInt32BE(end);
        spans.push([end + 4, end + 4 + Math.max(length, 0)]);
        end += 4 + Math.max(length, 0);
      }
      if (spans.length < fields || end > buffer.length) break;
      // A slice, not a copy: the line's bytes go to the socket as PostgreSQL sent them.
      const line = buffer.subarray(spans[0]![0], spans[0]![1]);
      this.lines.push(line);
      this.bytes += line.length;
      this.lastKey = spans.slice(1).map(([from, to]) => buffer.subarray(from, to));
      at = end;
    }
    this.pending = at >= buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(at));
    buffer = Buffer.alloc(0);
  }

  chunk(): ExportChunk {
    const key = this.lastKey;
    return {
      lines: this.lines,
      rows: this.lines.length,
      bytes: this.bytes,
      last: key
        ? { jobCreatedAt: new Date(key[0]!.toString('latin1')), jobId: key[1]!.toString('utf8'), position: key[2]!.readInt32BE(0) }
        : null,
    };
  }
}
