import { releaseInFlight } from '../../http/in-flight-limit';
import type { Request, Response } from 'express';
import { parseIdempotencyKey, type GenerationRequest } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { parsePrefer } from '../../http/prefer';
import type { Valid } from '../../http/request-validation';
import { pollHeaders, presentAccepted } from '../../presenters/job-presenter';
import { generateLeads } from '../../use-cases/generate-leads';
import { checkServableRequest } from '../../use-cases/servable-request-check';
import { checkJobWebhookUrl } from '../../use-cases/webhook-target-check';

function clientGone(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  req.on('aborted', () => controller.abort());
  return controller.signal;
}

export function generateRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { body: request }: Valid<unknown, unknown, GenerationRequest>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    checkServableRequest(deps.config, request);
    // A job's own webhook target is checked as an endpoint's is (https outside development, public addresses).
    if (request.webhookUrl) await checkJobWebhookUrl(deps, request.webhookUrl);
    const prefer = parsePrefer(req.get('Prefer'), deps.config.api.syncWaitMs);

    const { terminal, body, job, replayed } = await generateLeads(deps, {
      accountId: account.id,
      idempotencyKey,
      request,
      waitMs: prefer.waitMs,
      signal: clientGone(req, res),
      // Waiting for its job is no work: its place among the account's requests in flight goes back (decision 050).
      onWaiting: () => releaseInFlight(res),
    });

    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    if (prefer.applied) res.setHeader('Preference-Applied', prefer.applied);
    res.setHeader('Cache-Control', 'no-store');
    if (terminal || !job) {
      res.status(200).type('application/json').send(body);
      return;
    }
    const accepted = presentAccepted(job, deps.config.http.publicBaseUrl);
    res.setHeader('Location', accepted.pollUrl);
    res.set(pollHeaders(job));
    res.status(202).json(accepted);
  };
}
