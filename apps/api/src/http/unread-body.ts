import type { RequestHandler } from 'express';
import type { Socket } from 'node:net';

/** A declared body larger than this, answered before it was read to its end, is not read further. */
export const UNREAD_BODY_BYTES = 64 * 1024;
/** How long the connection stays open, unread, once the answer is out: time for the client to read it. */
export const LINGER_MS = 2_000;

/**
 * A request answered before its large body was read (a 429 or 401 before the body is looked at, a 413 while it
 * streams) is answered with `Connection: close`, and the rest of its body is never read. Node would read it to its
 * end to keep the connection (a refused 100,000-entry upload still cost the API its 4 MB: issue 31, finding 3).
 *
 * Closing at once is not enough: a client still writing the body gets a reset, which can discard the answer it has
 * not read yet (RFC 9112 section 9.6). So the close lingers, as Apache's and nginx's do: the answer is sent and the
 * write side closed (FIN), the socket stops reading (the client's writes stall on the TCP window rather than being
 * read), and only after LINGER_MS is it destroyed. Node's server closes a `Connection: close` response's socket
 * with `destroySoon` once the answer is written; for these requests that call lingers instead.
 */
export const closeOnUnreadBody: RequestHandler = (req, res, next) => {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared <= UNREAD_BODY_BYTES && req.headers['transfer-encoding'] === undefined) {
    next();
    return;
  }
  const writeHead = res.writeHead;
  res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
    if (!req.complete) {
      this.setHeader('Connection', 'close');
      lingerOnClose(req.socket);
    }
    return writeHead.apply(this, args);
  } as typeof res.writeHead;
  next();
};

function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    // Node's server resumes an unread request to drain it just before closing: paused again after that.
    this.pause();
    setImmediate(() => this.pause());
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
}
