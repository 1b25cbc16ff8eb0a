export * from './provider';
export * from './registry';
