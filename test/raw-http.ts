import http from 'node:http';
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** the body parsed as JSON, or null when it is not JSON */
  body: Record<string, unknown> | null;
  ms: number;
}

function parsed(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * One request with exactly these headers and body bytes (no client adds or fixes anything), with
 * an optional local address so a test can be several clients (127.0.0.2, ...).
 */
export function rawRequest(
  port: number,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string | number>;
    body?: Buffer | string;
    localAddress?: string;
    timeoutMs?: number;
  },
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        headers: options.headers ?? {},
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed(text), ms: Date.now() - started });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SocketAnswer {
  /** everything the server wrote before it closed the connection */
  raw: string;
  status: number | null;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  /** the server closed the connection (rather than our timeout) */
  closed: boolean;
  ms: number;
}

/** Writes bytes on a bare TCP socket and reads until the server closes it, or the timeout. */
export function rawSocket(port: number, bytes: Buffer | string, timeoutMs = 3_000): Promise<SocketAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = (end < 0 ? raw : raw.slice(0, end)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      // Only the first response: a pipelined second one may follow it.
      const bodyText = end < 0 ? '' : raw.slice(end + 4, end + 4 + Number(headers['content-length'] ?? raw.length));
      resolve({
        raw,
        status: status ? Number(status[1]) : null,
        headers,
        body: parsed(Buffer.from(bodyText, 'latin1').toString('utf8')),
        closed,
        ms: Date.now() - started,
      });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(bytes);
  });
}
