export * from './readiness';
export * from './ops-server';
