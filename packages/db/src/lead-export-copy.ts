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

/**
 * The line of one lead, as presentLeadItemJson (JSON Lines) or the CSV export writes it. `unterminated`: a JSON Lines
 * line without its line break, which COPY's text format then ends each row with (copyAccountRange).
 */
function lineOf(format: ExportLineFormat, unterminated = false): string {
  if (format === 'csv') return `lead_csv_row(j.id, j.result_set_id, l.position, l.created_at, l.data)`;
  return `'{"jobId":' || to_json(j.id)::text || ',"resultSetId":' || to_json(j.result_set_id)::text || ',"position":' || l.position
    || ',"deliveredAt":"' || ${iso('l.created_at')} || '","lead":' || l.data::text || ${unterminated ? `'}'` : `E'}\\n'`}`;
}

/**
 * Called after each block of COPY data the chunk reads: a promise while the export yields to others (the stream is not
 * read until it settles), else null (apps/api/src/http/export-pacing.ts, decision 049).
 */
export type CopyPace = () => Promise<void> | null;

const literal = (value: string | null) => (value === null ? 'NULL' : escapeLiteral(value));
const timestamp = (value: Date | null) => (value === null ? 'NULL' : `${escapeLiteral(value.toISOString())}::timestamptz`);
const integer = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
};

/** The export's filters on jobs (the same for the keyset chunks, the ranges and the jobs listed to cut them). */
function jobFilters(accountId: string, filter: LeadFilter): string {
  return `j.account_id = ${literal(accountId)}
       ${filter.source ? `AND j.source::text = ${literal(filter.source)}` : ''}
       ${filter.jobId ? `AND j.id = ${literal(filter.jobId)}` : ''}
       ${filter.createdAfter ? `AND j.created_at >= ${timestamp(filter.createdAfter)}` : ''}
       ${filter.createdBefore ? `AND j.created_at < ${timestamp(filter.createdBefore)}` : ''}`;
}

/** Leads strictly after `after` (the index's bound on created_at first, then the row comparison). */
function leadsAfter(after: LeadKeyset | null): string {
  if (!after) return '';
  const since = timestamp(after.jobCreatedAt);
  return `AND j.created_at >= ${since} AND (j.created_at, j.id, l.position) > (${since}, ${literal(after.jobId)}, ${integer(after.position)})`;
}

const ACCOUNT_LEADS_FROM = `FROM jobs j JOIN leads l ON l.job_id = j.id AND l.job_created_at IN ('-infinity', j.created_at)`;

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
  pace?: CopyPace,
  hooks?: CopyHooks,
): Promise<ExportChunk> {
  return copyChunk(
    db,
    `SELECT ${lineOf(format)}, ${iso('j.created_at')}, j.id, l.position
     ${ACCOUNT_LEADS_FROM}
     WHERE ${jobFilters(accountId, filter)}
       ${leadsAfter(after)}
     ORDER BY j.created_at, j.id, l.position
     LIMIT ${integer(limit)}`,
    pace,
    hooks,
  );
}

/** A job's place in the account's export, and about how many leads it holds (for sizing ranges only). */
export interface ExportJobKey {
  jobCreatedAt: Date;
  jobId: string;
  /** delivered_count less erased leads, 0 once expired: an estimate (a running job gains leads meanwhile) */
  leads: number;
}

/** A position above any lead's: a keyset at the end of a whole job. */
export const AFTER_WHOLE_JOB = 2_147_483_647;

/**
 * The export's next `limit` jobs, in its order: those after (created_at, id) of `after`, or from `after`'s job when
 * `fromItsJob` (a keyset inside a job: that job's later leads are still to come). Issue 39: a chunk of the account's
 * export is a range of whole jobs, cut from these by their counts, so the next range's bounds are known before the
 * leads of this one are read.
 */
export async function accountExportJobs(
  db: ReadSide,
  accountId: string,
  filter: LeadFilter,
  after: { jobCreatedAt: Date; jobId: string } | null,
  fromItsJob: boolean,
  limit: number,
): Promise<ExportJobKey[]> {
  const since = after ? timestamp(after.jobCreatedAt) : null;
  const { rows } = await db.sql.query<{ created: string; id: string; leads: number }>(
    `SELECT ${iso('j.created_at')} AS created, j.id,
            CASE WHEN j.leads_expired_at IS NULL THEN greatest(j.delivered_count - j.leads_erased, 0) ELSE 0 END AS leads
     FROM jobs j
     WHERE ${jobFilters(accountId, filter)}
       ${after ? `AND j.created_at >= ${since} AND (j.created_at, j.id) ${fromItsJob ? '>=' : '>'} (${since}, ${literal(after.jobId)})` : ''}
     ORDER BY j.created_at, j.id
     LIMIT ${integer(limit)}`,
  );
  return rows.map((r) => ({ jobCreatedAt: new Date(r.created), jobId: r.id, leads: Number(r.leads) }));
}

/**
 * The account's leads after `after` up to the end of job `through` (inclusive), whole: a range of jobs (issue 39),
 * no LIMIT (a job's leads are bounded by its maxResults). The same walk, order and lines as copyAccountLeads: a
 * range's lines are exactly the keyset chunks' lines over the same span.
 */
export function copyAccountRange(
  db: ReadSide,
  accountId: string,
  filter: LeadFilter,
  after: LeadKeyset | null,
  through: { jobCreatedAt: Date; jobId: string },
  format: ExportLineFormat,
  pace?: CopyPace,
  hooks?: CopyHooks,
): Promise<ExportChunk> {
  const until = timestamp(through.jobCreatedAt);
  const where = `${ACCOUNT_LEADS_FROM}
     WHERE ${jobFilters(accountId, filter)}
       ${leadsAfter(after)}
       AND j.created_at <= ${until} AND (j.created_at, j.id) <= (${until}, ${literal(through.jobId)})
     ORDER BY j.created_at, j.id, l.position`;
  // JSON Lines in COPY's text format: a range needs no row's keys (its bounds are jobs), and a JSON Lines line holds no
  // raw line break (jsonb's text escapes them), so COPY's rows are the lines as they go out, but for COPY's escaping of
  // backslashes (TextLines). No row is parsed in the API: a million of them, sliced one by one, were half its CPU in
  // garbage collection (issue 39). A CSV row may hold line breaks (a quoted address): it stays binary.
  if (format === 'jsonl') return copyChunk(db, `SELECT ${lineOf(format, true)} ${where}`, pace, hooks, 'text');
  return copyChunk(db, `SELECT ${lineOf(format)}, ${iso('j.created_at')}, j.id, l.position ${where}`, pace, hooks);
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
  pace?: CopyPace,
): Promise<ExportChunk> {
  return copyChunk(
    db,
    `SELECT ${lineOf(format)}, ${iso('j.created_at')}, j.id, l.position
     FROM jobs j JOIN leads l ON l.job_id = j.id AND l.job_created_at IN ('-infinity', j.created_at)
     WHERE j.${by === 'job' ? 'id' : 'result_set_id'} = ${literal(id)} AND j.account_id = ${literal(accountId)}
       AND l.position > ${integer(after)}
     ORDER BY l.position
     LIMIT ${integer(limit)}`,
    pace,
  );
}

// PostgreSQL's binary COPY: an 11-byte signature, flags and an extension area, then per row a 16-bit field count
// and each field's 32-bit length and bytes, then -1 (https://www.postgresql.org/docs/15/sql-copy.html, "Binary Format").
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** What a caller reading chunks beside each other needs (apps/api/src/account-export-walk.ts). */
export interface CopyHooks {
  /** called once the chunk has its pooled connection (a read beside it must not count it as a waiter of the pool) */
  connected?: () => void;
  /** stops the chunk where it is (the client went): its COPY is not read further and its connection is discarded */
  signal?: AbortSignal;
}

/**
 * `binary` (rows of four fields: the line and its keys, RowParser) or `text` (rows of one field, the line, in COPY's text
 * format: TextLines); a `text` chunk has no `last`.
 */
async function copyChunk(
  db: ReadSide,
  select: string,
  pace?: CopyPace,
  hooks?: CopyHooks,
  format: 'binary' | 'text' = 'binary',
): Promise<ExportChunk> {
  const signal = hooks?.signal;
  signal?.throwIfAborted();
  const client = await db.sql.connect();
  hooks?.connected?.();
  // Aborted mid-COPY, the connection is still in COPY mode: it is closed (its backend ends its statement), not reused.
  let discard = false;
  let stop: (() => void) | null = null;
  const stopped = signal
    ? new Promise<never>((_, reject) => {
        stop = () => reject(signal.reason instanceof Error ? signal.reason : new Error('export stopped'));
        signal.addEventListener('abort', stop, { once: true });
      })
    : null;
  stopped?.catch(() => undefined);
  try {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('export stopped');
    // No JIT: a chunk's plan is cheap to run but its estimated cost (thousands of rows, each a long expression) would
    // set off JIT compilation, seconds a chunk. No Sort node: the chunk must walk jobs(account_id, created_at) and
    // leads(job_id, position) in order under an Incremental Sort and stop at its LIMIT; the planner, misjudging the
    // keyset's selectivity, otherwise picks a hash join of the whole leads table and a sort of every lead after the
    // keyset, once per chunk (quadratic in the export: decision 049). SET LOCAL: they end with the transaction (and
    // behind PgBouncer too).
    await client.query('BEGIN; SET LOCAL jit = off; SET LOCAL enable_sort = off');
    const stream = client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT ${format})`));
    discard = signal !== undefined;
    const parser = format === 'binary' ? new RowParser() : new TextLines();
    const blocks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    for (;;) {
      const next = blocks.next();
      // Stopped while a block is awaited: that read then fails (the connection closes) and is nobody's.
      if (stopped) next.catch(() => undefined);
      const block = stopped ? await Promise.race([next, stopped]) : await next;
      if (block.done) break;
      parser.push(block.value);
      // Not read while the pace holds it: PostgreSQL's backend blocks on send once the socket's buffers are full.
      const held = pace?.();
      if (held) await (stopped ? Promise.race([held, stopped]) : held);
    }
    discard = false;
    await client.query('COMMIT');
    // The rows COPY's CommandComplete counted (handled before COMMIT's answer).
    return parser.chunk((stream as unknown as { rowCount: number }).rowCount);
  } catch (error) {
    // A failed statement leaves the connection usable (ROLLBACK); only one stopped mid-COPY is closed.
    discard = discard && signal?.aborted === true;
    if (!discard) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (stop) signal?.removeEventListener('abort', stop);
    client.release(discard ? new Error('export stopped mid-COPY') : undefined);
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
    const buffer = this.pending.length ? Buffer.concat([this.pending, data]) : data;
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
    // The last row's key fields, as offsets into this buffer (sliced once per block, not once per row).
    let lastRow = -1;
    for (;;) {
      if (buffer.length - at < 2) break;
      const fields = buffer.readInt16BE(at);
      if (fields === -1) {
        at = buffer.length;
        break;
      }
      // The whole row must be here: walk its fields' lengths first.
      let end = at + 2;
      let complete = true;
      for (let f = 0; f < fields; f++) {
        if (buffer.length - end < 4) {
          complete = false;
          break;
        }
        end += 4 + Math.max(buffer.readInt32BE(end), 0);
      }
      if (!complete || end > buffer.length) break;
      // A slice, not a copy: the line's bytes go to the socket as PostgreSQL sent them.
      const length = Math.max(buffer.readInt32BE(at + 2), 0);
      this.lines.push(buffer.subarray(at + 6, at + 6 + length));
      this.bytes += length;
      lastRow = at;
      at = end;
    }
    if (lastRow >= 0) {
      const key: Buffer[] = [];
      let field = lastRow + 2;
      const fields = buffer.readInt16BE(lastRow);
      for (let f = 0; f < fields; f++) {
        const length = Math.max(buffer.readInt32BE(field), 0);
        if (f > 0) key.push(buffer.subarray(field + 4, field + 4 + length));
        field += 4 + length;
      }
      this.lastKey = key;
    }
    this.pending = at >= buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(at));
  }

  chunk(_copied?: number): ExportChunk {
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

// COPY's text format writes a backslash in a value as two, and a few control characters as a backslash and a letter
// (https://www.postgresql.org/docs/15/sql-copy.html, "Text Format": COPY TO never writes octal or hex sequences).
const UNESCAPED: Record<number, number> = { 0x5c: 0x5c, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x76: 0x0b };
const BACKSLASH = 0x5c;

/**
 * Reads COPY text-format rows of one field as they arrive: each row is its value and a line break, so a block of COPY
 * data is already the lines' bytes, but for the escapes undone here (a block without a backslash goes out as it came).
 * An escape cut by a block's end is finished with the next block.
 */
export class TextLines {
  readonly lines: Buffer[] = [];
  bytes = 0;
  /** the last block ended inside an escape: its backslash */
  private escaping = false;

  push(data: Buffer): void {
    if (data.length === 0) return;
    let next = data.indexOf(BACKSLASH);
    if (next === -1 && !this.escaping) {
      this.add(data);
      return;
    }
    const out = Buffer.allocUnsafe(data.length);
    let written = 0;
    let from = 0;
    if (this.escaping) {
      out[written++] = unescaped(data[0]!);
      this.escaping = false;
      from = 1;
      next = data.indexOf(BACKSLASH, 1);
    }
    while (next !== -1) {
      written += data.copy(out, written, from, next);
      if (next + 1 === data.length) {
        this.escaping = true;
        from = data.length;
        break;
      }
      out[written++] = unescaped(data[next + 1]!);
      from = next + 2;
      next = data.indexOf(BACKSLASH, from);
    }
    if (from < data.length) written += data.copy(out, written, from);
    this.add(out.subarray(0, written));
  }

  chunk(rows = 0): ExportChunk {
    if (this.escaping) throw new Error('COPY: text data ended inside an escape');
    return { lines: this.lines, rows, bytes: this.bytes, last: null };
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.lines.push(piece);
    this.bytes += piece.length;
  }
}

function unescaped(byte: number): number {
  const value = UNESCAPED[byte];
  if (value === undefined) throw new Error(`COPY: an escape this reader does not know (\\${String.fromCharCode(byte)})`);
  return value;
}
