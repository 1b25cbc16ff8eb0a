export { createStoreLeadsProvider, type StoreLeadsProviderOptions } from './store-leads-provider';
