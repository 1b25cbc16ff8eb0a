import { timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { errors, OBJECTION_STATUSES, type ObjectionStatus } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { Queue, RedisClient, RedisKeys } from '@leadgen/queue';
import { MAX_JSON_DEPTH, shapeCheck } from './http/json-body';
import { DEFAULT_LOGIN_LIMITS, loginThrottle, type LoginLimits, type LoginSubject } from './http/login-throttle';
import { operatorDevices } from './http/operator-device';
import { pageContentSecurityPolicy } from './http/security-headers';
import { renderObjectionsPage, type ObjectionsView } from './operator-objections';

export const BOARD_PATH = '/admin/queues';
const OPERATOR = 'operator';

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function basicCredentials(header: string): { user: string; password: string } | null {
  const [scheme, encoded] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return null;
  const [user, ...rest] = Buffer.from(encoded, 'base64').toString('utf8').split(':');
  return { user: user ?? '', password: rest.join(':') };
}

type RenderCallback = (error: Error | null, html?: string) => void;
type ViewEngine = (path: string, options: object, callback: RenderCallback) => void;
// The board's page links Google Fonts: the CSP would block it, but the browser would still try (and
// report a violation). The link is taken out of the rendered page; the system font is used.
const THIRD_PARTY_STYLESHEET = /<link[^>]+href="https:\/\/[^"]*"[^>]*rel="stylesheet"[^>]*>/g;

function withoutThirdPartyFonts(board: express.Express): void {
  const engines = (board as unknown as { engines: Record<string, ViewEngine> }).engines;
  const render = engines['.ejs'];
  if (!render) throw new Error('Bull Board no longer renders its page with ejs: check withoutThirdPartyFonts');
  engines['.ejs'] = (path, options, callback) =>
    render(path, options, (error, html) => callback(error, html?.replace(THIRD_PARTY_STYLESHEET, '')));
}

export interface BoardOptions {
  redis: RedisClient;
  keys: RedisKeys;
  limits?: LoginLimits;
  /** OPERATOR_BOARD_WRITABLE: the board's write actions; what each does to a job is in docs/operations.md (Bull Board) */
  writable?: boolean;
  /** the objections page at BOARD_PATH/objections (decision 042); absent, no such page */
  objections?: ObjectionsView;
}

/**
 * Bull Board for operators, behind HTTP Basic auth (user `operator`, password OPERATOR_PASSWORD).
 * Failed logins are throttled (429 with Retry-After): a browser that logged in before, by its device
 * cookie alone; any other client per address and per user name (login-throttle.ts), so a stranger can
 * hold back new devices but never one the operator used. Each failure is logged, without the password. Read-only unless OPERATOR_BOARD_WRITABLE: PostgreSQL decides a
 * job's fate, and a queue entry removed here only leaves the lost-job sweep to put it back. With Redis away the board is closed (503): it could not show
 * the queues anyway, and an unthrottled login is what the limit exists to prevent.
 */
export function operatorBoard(queues: Queue[], password: string, options: BoardOptions): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: !options.writable })), serverAdapter });
  const board = serverAdapter.getRouter() as express.Express;
  // The board is an Express app of its own, which would otherwise announce itself on every response.
  board.disable('x-powered-by');
  withoutThirdPartyFonts(board);
  // Parsed here, before the board's own parser: bodies are capped and never inflated, and a malformed
  // one becomes a Problem Details 400 from our error middleware rather than the board's error page.
  const parseBody = express.json({
    limit: '16kb',
    inflate: false,
    verify: shapeCheck({ maxDepth: MAX_JSON_DEPTH, maxEntries: 16 * 1024 }),
  });
  const throttle = loginThrottle(options.redis, options.keys, options.limits ?? DEFAULT_LOGIN_LIMITS);
  const devices = operatorDevices(password);

  const challenge: RequestHandler = (_req, res) => {
    res.setHeader('WWW-Authenticate', 'Basic realm="leadgen operators"');
    res.status(401).type('text/plain').send('operator login required');
  };

  return async (req, res, next) => {
    // Queue contents and job data behind a login: no answer of the board is kept by a browser or a
    // proxy. Set again as the head is written, because the board's static files set their own.
    res.setHeader('Cache-Control', 'no-store');
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
      if (!this.headersSent) this.setHeader('Cache-Control', 'no-store');
      return writeHead.apply(this, args);
    } as typeof res.writeHead;
    const credentials = basicCredentials(req.get('Authorization') ?? '');
    if (!credentials) {
      challenge(req, res, next);
      return;
    }
    // The client behind the proxies TRUST_PROXY names: keyed on a proxy's own address, one guesser would lock out every operator.
    const client = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const device = devices.trusted(req.get('Cookie'));
    const subject: LoginSubject = device ? { device } : { client, user: credentials.user };
    // Counted before the password is compared, in the same script as the check, so concurrent attempts
    // cannot get more guesses than the limit; over it, an attacker learns nothing from the answer.
    const admission = await throttle.admit(subject).catch(() => null);
    if (admission === null) throw errors.serviceUnavailable('The operator board is unavailable; retry shortly');
    if (admission.retryAfter > 0) throw errors.rateLimited(admission.retryAfter);
    if (credentials.user !== OPERATOR || !sameSecret(credentials.password, password)) {
      logger.warn('operator login failed', {
        client,
        user: credentials.user.slice(0, 64),
        knownDevice: device !== null,
        failures: admission.counts,
      });
      challenge(req, res, next);
      return;
    }
    await throttle.refund(subject).catch(() => undefined);
    // This browser is a known device from now on (renewed on every login, so one in use never expires).
    res.append('Set-Cookie', devices.issue(device, req.secure));
    // The objections page (decision 042): ours, beside the board's queues, behind the same login; subjects masked.
    if (options.objections && req.path === '/objections' && (req.method === 'GET' || req.method === 'HEAD')) {
      const asked = typeof req.query.status === 'string' ? req.query.status : undefined;
      const status = (OBJECTION_STATUSES as readonly string[]).includes(asked ?? '') ? (asked as ObjectionStatus) : undefined;
      const page = await renderObjectionsPage(options.objections, status, BOARD_PATH);
      pageContentSecurityPolicy(req, res, () => res.status(200).type('html').send(page));
      return;
    }
    // Read-only means every writing route, whatever the board's own per-queue check covers.
    if (!options.writable && req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed(['GET', 'HEAD']);
    if ((req.get('Content-Encoding') ?? 'identity').trim().toLowerCase() !== 'identity') throw errors.unsupportedContentEncoding();
    pageContentSecurityPolicy(req, res, () => parseBody(req, res, (error?: unknown) => (error ? next(error) : board(req, res, next))));
  };
}
