import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from '@leadgen/queue';

export const BOARD_PATH = '/admin/queues';

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Bull Board for operators, behind HTTP Basic auth (user `operator`, password OPERATOR_PASSWORD). */
export function operatorBoard(queues: Queue[], password: string): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: false })), serverAdapter });
  const board = serverAdapter.getRouter() as RequestHandler;
  return (req, res, next) => {
    const header = req.get('Authorization') ?? '';
    const [scheme, encoded] = header.split(' ');
    const [user, ...rest] = Buffer.from(encoded ?? '', 'base64').toString('utf8').split(':');
    if (scheme?.toLowerCase() !== 'basic' || user !== 'operator' || !sameSecret(rest.join(':'), password)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="leadgen operators"');
      res.status(401).type('text/plain').send('operator login required');
      return;
    }
    board(req, res, next);
  };
}
