export * from './readiness';
export * from './ops-server';
export * from './metrics';
export * from './time-limit';
export * from './startup-failure';
export * from './account-presence';
export * from './loop-busy';
