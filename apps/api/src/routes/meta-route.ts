import type { Request, Response } from 'express';
import { LINKEDIN_COUNTRIES, LINKEDIN_COUNTRY_LIST_NAME, TARIFFS } from '@leadgen/domain';

/** GET /api/v1/meta/linkedin-countries: the governed list the linkedin `state` is checked against. */
export function linkedinCountriesRoute(_req: Request, res: Response): void {
  res.json({ name: LINKEDIN_COUNTRY_LIST_NAME, countries: LINKEDIN_COUNTRIES.map(({ code, name }) => ({ code, name })) });
}

/** GET /api/v1/meta/tariffs: credits per delivered item and minimum, per source. */
export function tariffsRoute(_req: Request, res: Response): void {
  res.json({ tariffs: TARIFFS });
}
