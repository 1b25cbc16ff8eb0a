// ISO 3166-1 alpha-2: the officially assigned codes (249), the only values `state` accepts.
const ISO_3166_ALPHA2 =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

export const ISO_COUNTRY_CODES: ReadonlySet<string> = new Set(ISO_3166_ALPHA2.split(' '));

export function isIsoCountryCode(value: string): boolean {
  return ISO_COUNTRY_CODES.has(value.toUpperCase());
}

/**
 * The governed list of countries the linkedin source supports: the markets our people-data
 * provider covers with enough depth to sell. Changing it is a product decision (docs/decisions/007).
 */
export const LINKEDIN_COUNTRY_LIST_NAME = 'linkedin-supported-countries v1';

export const LINKEDIN_COUNTRIES: ReadonlyArray<{ code: string; name: string; aliases?: string[] }> = [
  { code: 'US', name: 'United States', aliases: ['United States of America', 'USA'] },
  { code: 'CA', name: 'Canada' },
  { code: 'GB', name: 'United Kingdom', aliases: ['Great Britain', 'UK'] },
  { code: 'IE', name: 'Ireland' },
  { code: 'AU', name: 'Australia' },
  { code: 'NZ', name: 'New Zealand' },
  { code: 'DE', name: 'Germany' },
  { code: 'AT', name: 'Austria' },
  { code: 'CH', name: 'Switzerland' },
  { code: 'FR', name: 'France' },
  { code: 'BE', name: 'Belgium' },
  { code: 'NL', name: 'Netherlands', aliases: ['The Netherlands'] },
  { code: 'LU', name: 'Luxembourg' },
  { code: 'ES', name: 'Spain' },
  { code: 'PT', name: 'Portugal' },
  { code: 'IT', name: 'Italy' },
  { code: 'DK', name: 'Denmark' },
  { code: 'SE', name: 'Sweden' },
  { code: 'NO', name: 'Norway' },
  { code: 'FI', name: 'Finland' },
  { code: 'PL', name: 'Poland' },
  { code: 'CZ', name: 'Czechia', aliases: ['Czech Republic'] },
  { code: 'IL', name: 'Israel' },
  { code: 'AE', name: 'United Arab Emirates', aliases: ['UAE'] },
  { code: 'SG', name: 'Singapore' },
  { code: 'IN', name: 'India' },
  { code: 'JP', name: 'Japan' },
  { code: 'BR', name: 'Brazil' },
  { code: 'MX', name: 'Mexico' },
  { code: 'ZA', name: 'South Africa' },
];

const linkedinByKey = new Map<string, string>();
for (const country of LINKEDIN_COUNTRIES) {
  for (const key of [country.code, country.name, ...(country.aliases ?? [])]) {
    linkedinByKey.set(key.toLowerCase(), country.code);
  }
}

/** A code or English name from the governed list, normalised to its code; null when not on the list. */
export function normalizeLinkedinCountry(value: string): string | null {
  return linkedinByKey.get(value.trim().toLowerCase()) ?? null;
}

export function countryName(code: string): string {
  const known = LINKEDIN_COUNTRIES.find((c) => c.code === code);
  if (known) return known.name;
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}
