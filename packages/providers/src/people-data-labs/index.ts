export { createPeopleDataLabsProvider, type PeopleDataLabsProviderOptions } from './provider';
export { bareDomain, createCompanyPeopleFinder, type CompanyPeopleFinder } from './company-people';
export { normalizeLinkedinUrl } from './map';
