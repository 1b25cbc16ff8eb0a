export { CONFIG_VARIABLES, DEFAULT_OPS_PORTS, defaultEnrichmentUserAgent, opsPort, type Config } from './variables';
export * from './load-config';
export * from './config-table';
export { unknownVariableWarnings } from './variable-typos';
export * from './sandbox-guard';
