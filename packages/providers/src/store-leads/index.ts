export { createStoreLeadsProvider, type StoreLeadsProviderOptions } from './provider';
