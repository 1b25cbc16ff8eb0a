export { createGooglePlacesProvider, type GooglePlacesProviderOptions } from './provider';
export { FIELD_MASK } from './places-api';
