import type { Request, Response } from 'express';
import {
  categoryLabel,
  categoryName,
  categorySpellings,
  isConfirmedCategory,
  LINKEDIN_COUNTRIES,
  LINKEDIN_COUNTRY_LIST_NAME,
  STORELEADS_CATEGORY_PATHS,
  STORELEADS_TAXONOMY_RETRIEVED,
  TARIFFS,
} from '@leadgen/domain';

/** GET /api/v1/meta/linkedin-countries: the governed list the linkedin `state` is checked against. */
export function linkedinCountriesRoute(_req: Request, res: Response): void {
  res.json({ name: LINKEDIN_COUNTRY_LIST_NAME, countries: LINKEDIN_COUNTRIES.map(({ code, name }) => ({ code, name })) });
}

/** GET /api/v1/meta/shopify-categories: the Store Leads paths a shopify `category` maps onto. */
export function shopifyCategoriesRoute(_req: Request, res: Response): void {
  res.json({
    retrieved: STORELEADS_TAXONOMY_RETRIEVED,
    categories: STORELEADS_CATEGORY_PATHS.map((path) => ({
      path,
      name: categoryName(path),
      label: categoryLabel(path),
      confirmed: isConfirmedCategory(path),
      alsoSpelled: categorySpellings(path).slice(1),
    })),
  });
}

/** GET /api/v1/meta/tariffs: credits per delivered item and minimum, per source. */
export function tariffsRoute(_req: Request, res: Response): void {
  res.json({ tariffs: TARIFFS });
}
