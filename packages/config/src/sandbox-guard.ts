import type { Source } from '@leadgen/domain';
import type { Config } from './variables';

/** The key that takes each source off the sandbox (packages/providers/src/registry.ts builds the sandbox without it). */
const UPSTREAM_KEY: Record<Source, { variable: string; configured: (config: Config) => boolean }> = {
  google_maps: { variable: 'GOOGLE_PLACES_API_KEY', configured: (c) => c.providers.googlePlaces.apiKey !== null },
  linkedin: { variable: 'PDL_API_KEY', configured: (c) => c.providers.peopleDataLabs.apiKey !== null },
  shopify: { variable: 'STORELEADS_API_KEY', configured: (c) => c.providers.storeLeads.apiKey !== null },
};

/** Which of these sources the sandbox serves: those without their upstream's key. */
export function sandboxServedSources(config: Config, sources: readonly Source[]): Source[] {
  return sources.filter((source) => !UPSTREAM_KEY[source].configured(config));
}

/**
 * Production guard rail: in production the sandbox must not serve a source by accident (a missing key), as its
 * leads are synthetic and its `sandbox:delay=` keyword lets any account hold worker slots. The one line a
 * process refusing to start prints, or null when it may start.
 */
export function sandboxInProductionRefusal(config: Config, sources: readonly Source[]): string | null {
  if (config.env !== 'production' || config.sandbox.inProduction) return null;
  const served = sandboxServedSources(config, sources);
  if (served.length === 0) return null;
  const keys = served.map((source) => UPSTREAM_KEY[source].variable).join(', ');
  return `Invalid configuration: NODE_ENV=production but the sandbox would serve ${served.join(', ')} (${keys} unset): set ${keys}, or SANDBOX_IN_PRODUCTION=1 to run the sandbox in production on purpose`;
}

/** For a process's entry point: refuses to start (the line on stderr, exit code 78, as a bad variable) when the sandbox would serve a source in production. */
export function refuseSandboxInProduction(config: Config, sources: readonly Source[]): void {
  const refusal = sandboxInProductionRefusal(config, sources);
  if (refusal === null) return;
  process.stderr.write(`${refusal}\n`);
  process.exit(78);
}
