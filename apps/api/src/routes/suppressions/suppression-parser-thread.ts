import { parentPort } from 'node:worker_threads';
import { SUPPRESSION_PIECE, type EncodedChunk } from '@leadgen/db';
import { AppError } from '@leadgen/domain';
import { jsonShape } from '../../http/json-shape';
import { parseSuppressionsBody } from './suppressions-schema';
import type { ParseReply, ParseRequest } from './suppression-upload-parser';

/**
 * The thread that reads suppression uploads (issue 31, finding 3): their shape scan, JSON.parse, the body guard, Joi
 * and normalising took 1.3–1.5 s of a 100,000-entry upload on the API's event loop; here they take a thread of their
 * own. In two steps: `measure` scans the bytes and says how many entries they can hold (the API charges that before
 * anything is parsed), then `read` parses what was measured, or `drop` forgets it. What `read` answers is two
 * PostgreSQL array literals per piece of SUPPRESSION_PIECE entries (one string each; joined into statements of up
 * to SUPPRESSION_CHUNK, decision 035 amended), so the event loop neither rebuilds 100,000 strings nor encodes them again.
 */
const measured = new Map<number, Buffer>();

const pgArray = (items: readonly string[]) => `{${items.map((item) => `"${item.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;

function measure(id: number, bytes: Buffer, request: Extract<ParseRequest, { step: 'measure' }>): ParseReply {
  const { problem, entries } = jsonShape(bytes, request.limits);
  if (problem) return { id, outcome: 'shape', problem };
  measured.set(id, bytes);
  return { id, outcome: 'measured', entries: bytes.length === 0 ? 0 : entries + 1 };
}

function read(id: number, bytes: Buffer): ParseReply {
  let body: unknown;
  try {
    // As body-parser's strict mode: an empty body is an empty object, a bare scalar is not JSON it takes.
    body = bytes.length === 0 ? {} : JSON.parse(bytes.toString('utf8'));
  } catch {
    return { id, outcome: 'malformed' };
  }
  if (typeof body !== 'object' || body === null) return { id, outcome: 'malformed' };
  try {
    const entries = parseSuppressionsBody(body);
    const chunks: EncodedChunk[] = [];
    for (let i = 0; i < entries.length; i += SUPPRESSION_PIECE) {
      const part = entries.slice(i, i + SUPPRESSION_PIECE);
      chunks.push({
        count: part.length,
        kinds: pgArray(part.map((entry) => entry.kind)),
        values: pgArray(part.map((entry) => entry.value)),
      });
    }
    return { id, outcome: 'entries', count: entries.length, chunks };
  } catch (error) {
    if (error instanceof AppError) return { id, outcome: 'invalid', problems: (error.extra.errors ?? []) as never };
    throw error;
  }
}

function handle(request: ParseRequest): ParseReply | null {
  if (request.step === 'measure') return measure(request.id, Buffer.from(request.bytes), request);
  const bytes = measured.get(request.id);
  measured.delete(request.id);
  if (request.step === 'drop') return null;
  if (!bytes) return { id: request.id, outcome: 'failed', message: 'read before it was measured' };
  return read(request.id, bytes);
}

parentPort?.on('message', (request: ParseRequest) => {
  let reply: ParseReply | null;
  try {
    reply = handle(request);
  } catch (error) {
    reply = { id: request.id, outcome: 'failed', message: (error as Error).message };
  }
  if (reply) parentPort!.postMessage(reply);
});
