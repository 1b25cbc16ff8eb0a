export * from './readiness';
export * from './ops-server';
export * from './metrics';
