export { createPeopleDataLabsProvider, type PeopleDataLabsProviderOptions } from './people-data-labs-provider';
export { bareDomain, createCompanyPeopleFinder, type CompanyPeopleFinder } from './company-people';
export { normalizeLinkedinUrl } from './people-data-labs-mapping';
