import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errors, type AppError } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { problemDocument } from './problem';

/**
 * Node's HTTP parser refuses a malformed message (bad chunking, Content-Length with
 * Transfer-Encoding, control bytes in a header, oversized headers) before Express sees it, and by
 * default answers a bare 400/431 with no body. This answers the same statuses as Problem Details with
 * an X-Request-Id, where that is still safe, and closes the connection: after a framing error the
 * rest of the stream cannot be trusted.
 */
function problemFor(code: string | undefined): AppError | null {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.payloadTooLarge('the server limit for chunk extensions');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      // Every other parser error (HPE_*) is the client's malformed request; anything else (ECONNRESET,
      // EPIPE) means the peer is gone and there is nobody to answer.
      return code?.startsWith('HPE_') ? errors.malformedRequest() : null;
  }
}

interface InFlight {
  headersSent?: boolean;
  locals?: { requestId?: unknown };
}

export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // The response being written on this socket, if any (Node keeps it there): once its headers are
  // out, another status line would corrupt the stream for the peer.
  const inFlight = (socket as Socket & { _httpMessage?: InFlight })._httpMessage;
  const problem = problemFor(error.code);
  if (!problem || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const given = inFlight?.locals?.requestId;
  const requestId = typeof given === 'string' ? given : `req_${randomUUID().replace(/-/g, '')}`;
  logger.info('malformed request refused', { requestId, code: error.code, status: problem.status });
  const body = problemDocument(problem, requestId);
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'",
    'Cache-Control: no-store',
    'Connection: close',
  ];
  // An answer to HEAD has no body. Best effort: the packet that failed usually holds the request line.
  const isHead = error.rawPacket instanceof Buffer && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(`${head.join('\r\n')}\r\n\r\n${isHead ? '' : body}`, () => socket.destroy());
  // A peer that never reads must not hold the socket open.
  setTimeout(() => socket.destroy(), 2_000).unref();
}
