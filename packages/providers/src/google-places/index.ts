export { createGooglePlacesProvider, type GooglePlacesProviderOptions } from './google-places-provider';
export { FIELD_MASK } from './places-api';
