export {
  CONFIG_VARIABLES,
  DEFAULT_OPS_PORTS,
  JSON_BODY_LIMIT_BYTES,
  defaultEnrichmentUserAgent,
  opsPort,
  readsVariable,
  secretVariablesOf,
  VARIABLES,
  type Config,
  type DeployedProcess,
} from './variables';
export type { Reader, Variable } from './variable';
export * from './load-config';
export * from './config-table';
export { unknownVariableWarnings } from './variable-typos';
export * from './sandbox-guard';
export { PUBLISHED_EXAMPLE_SECRETS } from './published-secrets';
export * from './postgres-url';
