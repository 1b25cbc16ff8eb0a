import { errors, webhookUrlProblem } from '@leadgen/domain';
import { FetchError, resolveWebhookTarget, webhookNetworkPolicy } from '@leadgen/network-guard';
import type { ApiDependencies } from '../dependencies';

const CHECK_TIMEOUT_MS = 5_000;

/** Whether plain http targets are accepted: in development, or where private networks are allowed. */
export function allowsPlainHttp(deps: ApiDependencies): boolean {
  return deps.config.env === 'development' || deps.config.webhooks.allowPrivateNetworks;
}

/**
 * A webhook target is checked when it is given as the crawler checks a website (decision 016): its
 * host resolved, every address public (unless private networks are allowed), an allowed port. The
 * worker checks again at every attempt, since DNS answers change.
 */
export async function checkWebhookTarget(deps: ApiDependencies, url: string, pointer: string): Promise<void> {
  try {
    await resolveWebhookTarget(new URL(url), {
      policy: webhookNetworkPolicy(deps.config.webhooks.allowPrivateNetworks),
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    const why =
      error.code === 'forbidden_address'
        ? 'resolves to a private, loopback, link-local or otherwise non-public address'
        : error.code === 'forbidden_port'
          ? 'uses a port below 1024 other than 80 and 443'
          : 'has a host that does not resolve';
    throw errors.validation([{ pointer, detail: `${pointer.slice(2)} ${why}` }]);
  }
}

/** A generation request's `webhookUrl`: its scheme for this deployment, then its addresses. */
export async function checkJobWebhookUrl(deps: ApiDependencies, url: string): Promise<void> {
  const problem = webhookUrlProblem(url, { allowHttp: allowsPlainHttp(deps) });
  if (problem) throw errors.validation([{ pointer: '#/webhookUrl', detail: `webhookUrl ${problem}` }]);
  await checkWebhookTarget(deps, url, '#/webhookUrl');
}
