import type { LatLng, Rect } from '@leadgen/domain';
import { localeFor } from './sandbox-places';
import { SeededRandom } from './seeded-random';

/**
 * Where the sandbox's cities are, so that a sandbox place in Austin lies in Austin: the centre of every city the
 * sandbox names (sandbox-places.ts), to about a kilometre. A city it does not know is put near its country's
 * first city; a country it does not know, at a point drawn from the name (as before).
 */
const CENTRES: Record<string, Record<string, [number, number]>> = {
  US: {
    'new york': [40.713, -74.006],
    'los angeles': [34.052, -118.244],
    chicago: [41.878, -87.63],
    houston: [29.76, -95.37],
    austin: [30.267, -97.743],
    seattle: [47.606, -122.332],
    denver: [39.739, -104.99],
    boston: [42.36, -71.059],
    miami: [25.762, -80.192],
  },
  CA: {
    toronto: [43.653, -79.383],
    vancouver: [49.283, -123.121],
    montreal: [45.502, -73.567],
    calgary: [51.045, -114.072],
    ottawa: [45.421, -75.697],
  },
  GB: {
    london: [51.507, -0.128],
    manchester: [53.481, -2.243],
    birmingham: [52.486, -1.89],
    leeds: [53.801, -1.549],
    glasgow: [55.864, -4.252],
    bristol: [51.455, -2.588],
    edinburgh: [55.953, -3.189],
  },
  DE: {
    berlin: [52.52, 13.405],
    hamburg: [53.551, 9.994],
    munich: [48.135, 11.582],
    cologne: [50.938, 6.96],
    frankfurt: [50.11, 8.682],
  },
  FR: {
    paris: [48.857, 2.352],
    lyon: [45.764, 4.836],
    marseille: [43.297, 5.37],
    toulouse: [43.605, 1.444],
    bordeaux: [44.838, -0.579],
    lille: [50.629, 3.057],
  },
  ES: {
    madrid: [40.417, -3.704],
    barcelona: [41.385, 2.173],
    valencia: [39.47, -0.376],
    seville: [37.389, -5.984],
    bilbao: [43.263, -2.935],
  },
  IT: {
    rome: [41.903, 12.496],
    milan: [45.464, 9.19],
    naples: [40.852, 14.268],
    turin: [45.07, 7.686],
    florence: [43.77, 11.256],
  },
  NL: {
    amsterdam: [52.368, 4.904],
    rotterdam: [51.924, 4.478],
    utrecht: [52.091, 5.122],
    'the hague': [52.07, 4.3],
    eindhoven: [51.441, 5.47],
  },
  AU: {
    sydney: [-33.869, 151.209],
    melbourne: [-37.814, 144.963],
    brisbane: [-27.47, 153.026],
    perth: [-31.951, 115.861],
    adelaide: [-34.929, 138.601],
  },
  IN: {
    mumbai: [19.076, 72.878],
    delhi: [28.704, 77.103],
    bengaluru: [12.972, 77.595],
    chennai: [13.083, 80.271],
    hyderabad: [17.385, 78.487],
  },
  BR: {
    'são paulo': [-23.551, -46.633],
    'rio de janeiro': [-22.907, -43.173],
    'belo horizonte': [-19.917, -43.935],
    curitiba: [-25.429, -49.271],
    'porto alegre': [-30.035, -51.218],
  },
  JP: {
    tokyo: [35.676, 139.65],
    osaka: [34.694, 135.502],
    yokohama: [35.444, 139.638],
    nagoya: [35.181, 136.906],
    kyoto: [35.012, 135.768],
    fukuoka: [33.59, 130.402],
  },
  MX: { 'mexico city': [19.433, -99.133], guadalajara: [20.659, -103.35], monterrey: [25.686, -100.316] },
  IE: { dublin: [53.35, -6.26], cork: [51.899, -8.476], galway: [53.271, -9.057], limerick: [52.668, -8.631] },
  NZ: { auckland: [-36.849, 174.763], wellington: [-41.287, 174.776], christchurch: [-43.532, 172.637], hamilton: [-37.787, 175.279] },
  SE: { stockholm: [59.329, 18.069], gothenburg: [57.709, 11.975], malmö: [55.605, 13.004], uppsala: [59.859, 17.639] },
  CH: { zurich: [47.377, 8.542], geneva: [46.204, 6.143], basel: [47.56, 7.589], bern: [46.948, 7.447], lausanne: [46.52, 6.633] },
  AT: { vienna: [48.208, 16.374], graz: [47.071, 15.44], salzburg: [47.81, 13.055], linz: [48.306, 14.286], innsbruck: [47.269, 11.404] },
  BE: { brussels: [50.85, 4.352], antwerp: [51.219, 4.402], ghent: [51.054, 3.717], liège: [50.633, 5.567] },
  PL: { warsaw: [52.23, 21.012], kraków: [50.065, 19.945], wrocław: [51.108, 17.039], gdańsk: [54.352, 18.647], poznań: [52.406, 16.925] },
  PT: { lisbon: [38.722, -9.139], porto: [41.158, -8.629], braga: [41.545, -8.427], coimbra: [40.203, -8.41] },
  ZA: { 'cape town': [-33.925, 18.424], johannesburg: [-26.204, 28.047], durban: [-29.858, 31.022], pretoria: [-25.748, 28.229] },
  SG: { singapore: [1.352, 103.82] },
  AE: { dubai: [25.205, 55.271], 'abu dhabi': [24.454, 54.377], sharjah: [25.346, 55.421] },
  KE: { nairobi: [-1.292, 36.822] },
  NG: { lagos: [6.524, 3.379] },
  GH: { accra: [5.604, -0.187] },
  EG: { cairo: [30.044, 31.236] },
  MA: { casablanca: [33.573, -7.59] },
  TR: { istanbul: [41.008, 28.978] },
  GR: { athens: [37.984, 23.728] },
  DK: { copenhagen: [55.676, 12.568] },
  NO: { oslo: [59.914, 10.752] },
  FI: { helsinki: [60.17, 24.938] },
  CZ: { prague: [50.075, 14.438] },
  HU: { budapest: [47.498, 19.04] },
  RO: { bucharest: [44.427, 26.103] },
  BG: { sofia: [42.698, 23.322] },
  HR: { zagreb: [45.815, 15.982] },
  RS: { belgrade: [44.787, 20.457] },
  SK: { bratislava: [48.149, 17.107] },
  SI: { ljubljana: [46.057, 14.506] },
  UA: { kyiv: [50.45, 30.523] },
  LU: { luxembourg: [49.612, 6.13] },
  IS: { reykjavík: [64.147, -21.943] },
  EE: { tallinn: [59.437, 24.754] },
  LV: { riga: [56.95, 24.106] },
  LT: { vilnius: [54.687, 25.28] },
  CY: { nicosia: [35.186, 33.382] },
  MT: { valletta: [35.899, 14.514] },
  IL: { 'tel aviv': [32.085, 34.782] },
  SA: { riyadh: [24.713, 46.675] },
  QA: { doha: [25.286, 51.531] },
  KW: { 'kuwait city': [29.376, 47.977] },
  CN: { shanghai: [31.23, 121.474] },
  HK: { 'hong kong': [22.319, 114.169] },
  TW: { taipei: [25.033, 121.565] },
  KR: { seoul: [37.567, 126.978] },
  TH: { bangkok: [13.756, 100.502] },
  VN: { 'ho chi minh city': [10.823, 106.63] },
  MY: { 'kuala lumpur': [3.139, 101.687] },
  ID: { jakarta: [-6.208, 106.846] },
  PH: { manila: [14.6, 120.984] },
  PK: { karachi: [24.861, 67.01] },
  BD: { dhaka: [23.811, 90.413] },
  LK: { colombo: [6.927, 79.861] },
  AR: { 'buenos aires': [-34.604, -58.382] },
  CL: { santiago: [-33.449, -70.669] },
  CO: { bogotá: [4.711, -74.072] },
  PE: { lima: [-12.046, -77.043] },
  UY: { montevideo: [-34.901, -56.164] },
  EC: { quito: [-0.181, -78.468] },
  CR: { 'san josé': [9.928, -84.091] },
  PA: { 'panama city': [8.983, -79.517] },
  PR: { 'san juan': [18.466, -66.106] },
  RU: { moscow: [55.756, 37.617] },
  KZ: { almaty: [43.222, 76.851] },
};

/** the span of the viewport the sandbox resolves a place name to: about 11 km across */
export const PLACE_SPAN_DEGREES = 0.1;

function drawnCentre(text: string): LatLng {
  const rng = SeededRandom.fromText(`viewport:${text.trim().toLowerCase()}`);
  return { latitude: -40 + rng.next() * 90 + PLACE_SPAN_DEGREES / 2, longitude: -150 + rng.next() * 300 + PLACE_SPAN_DEGREES / 2 };
}

/**
 * The centre of a city the sandbox serves: the known city, else (a city it does not know, or none asked) the
 * country's first city nudged by the name, else a point drawn from the name.
 */
export function sandboxCityCentre(country: string, city: string | null): LatLng {
  const code = country.trim().toUpperCase();
  const known = CENTRES[code];
  const name = city?.trim().toLowerCase() ?? '';
  const exact = known?.[name];
  if (exact) return { latitude: exact[0], longitude: exact[1] };
  const first = localeFor(code).cities[0]?.toLowerCase();
  const main = first ? known?.[first] : undefined;
  if (!main) return drawnCentre(`${name}|${code}`);
  if (!name) return { latitude: main[0], longitude: main[1] };
  // An unknown town: within about 100 km of the country's first city, the same place for the same name.
  const rng = SeededRandom.fromText(`town:${code}|${name}`);
  return { latitude: main[0] + (rng.next() - 0.5) * 1.8, longitude: main[1] + (rng.next() - 0.5) * 1.8 };
}

/** The viewport a place name resolves to: "Austin" or "Austin, US" (a trailing country code), centred on the city. */
export function sandboxPlaceViewport(place: string, regionCode: string | null): Rect {
  const parts = place
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const tail = parts.length > 1 ? parts.at(-1)!.toUpperCase() : '';
  const country = /^[A-Z]{2}$/.test(tail) ? tail : (regionCode ?? '').toUpperCase();
  const city = (parts[0] ?? '').toLowerCase();
  const centre = CENTRES[country]?.[city] ? sandboxCityCentre(country, city) : drawnCentre(place);
  const half = PLACE_SPAN_DEGREES / 2;
  // to the micro-degree, as Google's viewports are given (no 30.217000000000002 in a batch's bounds)
  const at = (value: number) => Math.round(value * 1e6) / 1e6;
  return {
    low: { latitude: at(centre.latitude - half), longitude: at(centre.longitude - half) },
    high: { latitude: at(centre.latitude + half), longitude: at(centre.longitude + half) },
  };
}
