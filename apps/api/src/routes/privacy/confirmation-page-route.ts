import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { confirmByLink, linkIsPending } from '../../use-cases/objections';
import { askPage, confirmedPage, invalidLinkPage, PAGE_CSP } from './confirmation-page';

// The page a confirmation mail links to (decision 042): HTML for a person, mounted beside /docs rather than
// in the route table, whose entries are the API's operations. GET changes nothing; the button's POST confirms.

function sendPage(res: Response, status: number, html: string): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(html);
}

// The page's form posts `token=…`: a few hundred bytes at most.
const formBody = express.urlencoded({ extended: false, limit: 1024, parameterLimit: 5 });

export function objectionConfirmationPage(deps: ApiDependencies): Router {
  const router = express.Router();
  // GET ?token=…: the button when the link can still confirm (a mail scanner's visit changes nothing).
  router.get('/', async (req: Request, res: Response) => {
    const token = req.query.token;
    if (await linkIsPending(deps, token)) sendPage(res, 200, askPage(token as string, deps.config.objections.noticeDays));
    else sendPage(res, 404, invalidLinkPage());
  });
  // POST token=…: confirms once; the workers apply it within a minute.
  router.post('/', (req: Request, res: Response, next: NextFunction) => {
    formBody(req, res, (error?: unknown) => {
      if (error) return next(error);
      const token = (req.body as Record<string, unknown> | undefined)?.token;
      confirmByLink(deps, token).then((done) => sendPage(res, done ? 200 : 404, done ? confirmedPage() : invalidLinkPage()), next);
    });
  });
  router.all('/', () => {
    throw errors.methodNotAllowed(['GET', 'POST']);
  });
  return router;
}
