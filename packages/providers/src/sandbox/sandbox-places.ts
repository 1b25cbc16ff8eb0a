import { countryName } from '@leadgen/domain';
import type { SeededRandom } from './seeded-random';

/**
 * How a country writes a street address:
 * A "12 High Street, London EC1V 4PW", B "Hauptstraße 12, 10115 Berlin", C "12 Rue Victor Hugo, 75001 Paris".
 */
type AddressStyle = 'A' | 'B' | 'C';

interface CountryData {
  /** [city, what the phone pattern puts at {a}: the area code, plus the exchange where a fictional range needs one] */
  cities: ReadonlyArray<readonly [string, string]>;
  streets: readonly string[];
  style: AddressStyle;
  /** SeededRandom.fill pattern; empty where the country has no postal codes */
  postal: string;
  /** SeededRandom.fill pattern after {a} is replaced */
  phone: string;
  houseMax?: number;
  /** a fill pattern for countries whose house numbers are not a single number */
  house?: string;
}

// Fictional or drama ranges where the regulator reserves one, so a sandbox number never rings anybody:
// NANP 555-01xx, Ofcom's drama ranges, the Bundesnetzagentur's film numbers, ARCEP's fiction
// numbers, ACMA's 5550 xxxx.
const COUNTRIES: Record<string, CountryData> = {
  US: {
    cities: [
      ['New York', '212'],
      ['Los Angeles', '213'],
      ['Chicago', '312'],
      ['Houston', '713'],
      ['Austin', '512'],
      ['Seattle', '206'],
      ['Denver', '303'],
      ['Boston', '617'],
      ['Miami', '305'],
    ],
    streets: [
      'Main Street',
      'Oak Avenue',
      'Maple Drive',
      'Congress Avenue',
      'Cedar Lane',
      'Elm Street',
      'Park Avenue',
      'Lakeview Drive',
      'Washington Boulevard',
      '2nd Street',
    ],
    style: 'A',
    postal: '#####',
    phone: '+1 ({a}) 555-01##',
    houseMax: 9800,
  },
  CA: {
    cities: [
      ['Toronto', '416'],
      ['Vancouver', '604'],
      ['Montreal', '514'],
      ['Calgary', '403'],
      ['Ottawa', '613'],
    ],
    streets: ['Queen Street West', 'Yonge Street', 'Granville Street', 'Rue Sainte-Catherine', 'Bank Street', 'King Street East'],
    style: 'A',
    postal: '@#@ #@#',
    phone: '+1 ({a}) 555-01##',
    houseMax: 2400,
  },
  GB: {
    cities: [
      ['London', '20 7946 0'],
      ['Manchester', '161 496 0'],
      ['Birmingham', '121 496 0'],
      ['Leeds', '113 496 0'],
      ['Glasgow', '141 496 0'],
      ['Bristol', '117 496 0'],
      ['Edinburgh', '131 496 0'],
    ],
    streets: ['High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Mill Lane', 'King Street', 'Park Road', "Queen's Road"],
    style: 'A',
    postal: '@@% %@@',
    phone: '+44 {a}###',
  },
  DE: {
    cities: [
      ['Berlin', '30 23125 '],
      ['Hamburg', '40 66969 '],
      ['Munich', '89 99998 '],
      ['Cologne', '221 4710 '],
      ['Frankfurt', '69 90009 '],
    ],
    streets: ['Hauptstraße', 'Bahnhofstraße', 'Gartenstraße', 'Schillerstraße', 'Goethestraße', 'Lindenstraße', 'Friedrichstraße'],
    style: 'B',
    postal: '%####',
    phone: '+49 {a}###',
  },
  FR: {
    cities: [
      ['Paris', '1 99 00'],
      ['Lyon', '4 65 71'],
      ['Marseille', '4 65 71'],
      ['Toulouse', '5 36 49'],
      ['Bordeaux', '5 36 49'],
      ['Lille', '3 53 01'],
    ],
    streets: ['Rue de la République', 'Rue Victor Hugo', 'Avenue Jean Jaurès', 'Boulevard Voltaire', 'Rue du Moulin', 'Place de la Mairie'],
    style: 'C',
    postal: '%####',
    phone: '+33 {a} ## ##',
  },
  ES: {
    cities: [
      ['Madrid', '91'],
      ['Barcelona', '93'],
      ['Valencia', '96'],
      ['Seville', '95'],
      ['Bilbao', '94'],
    ],
    streets: ['Calle Mayor', 'Gran Vía', 'Calle de Alcalá', 'Avenida de la Constitución', 'Calle Real', 'Paseo de Gracia'],
    style: 'B',
    postal: '%####',
    phone: '+34 {a}# ### ###',
  },
  IT: {
    cities: [
      ['Rome', '06'],
      ['Milan', '02'],
      ['Naples', '081'],
      ['Turin', '011'],
      ['Florence', '055'],
    ],
    streets: ['Via Roma', 'Via Garibaldi', 'Corso Vittorio Emanuele', 'Via Dante', 'Via Giuseppe Mazzini', 'Piazza del Duomo'],
    style: 'B',
    postal: '#####',
    phone: '+39 {a} ### ####',
  },
  NL: {
    cities: [
      ['Amsterdam', '20'],
      ['Rotterdam', '10'],
      ['Utrecht', '30'],
      ['The Hague', '70'],
      ['Eindhoven', '40'],
    ],
    streets: ['Kerkstraat', 'Dorpsstraat', 'Molenweg', 'Stationsweg', 'Prinsengracht', 'Marktplein'],
    style: 'B',
    postal: '%### @@',
    phone: '+31 {a} ### ####',
  },
  AU: {
    cities: [
      ['Sydney', '2'],
      ['Melbourne', '3'],
      ['Brisbane', '7'],
      ['Perth', '8'],
      ['Adelaide', '8'],
    ],
    streets: ['George Street', 'Collins Street', 'Queen Street', 'King Street', 'Bourke Street', 'Pitt Street'],
    style: 'A',
    postal: '%###',
    phone: '+61 {a} 5550 ####',
  },
  IN: {
    cities: [
      ['Mumbai', '22'],
      ['Delhi', '11'],
      ['Bengaluru', '80'],
      ['Chennai', '44'],
      ['Hyderabad', '40'],
    ],
    streets: ['MG Road', 'Station Road', 'Park Street', 'Nehru Road', 'Linking Road', 'Brigade Road'],
    style: 'A',
    postal: '%#####',
    phone: '+91 {a} #### ####',
  },
  BR: {
    cities: [
      ['São Paulo', '11'],
      ['Rio de Janeiro', '21'],
      ['Belo Horizonte', '31'],
      ['Curitiba', '41'],
      ['Porto Alegre', '51'],
    ],
    streets: ['Rua Augusta', 'Avenida Paulista', 'Rua das Flores', 'Rua XV de Novembro', 'Avenida Atlântica', 'Rua Oscar Freire'],
    style: 'B',
    postal: '#####-###',
    phone: '+55 {a} ####-####',
    houseMax: 3000,
  },
  JP: {
    cities: [
      ['Tokyo', '3-####'],
      ['Osaka', '6-####'],
      ['Yokohama', '45-###'],
      ['Nagoya', '52-###'],
      ['Kyoto', '75-###'],
      ['Fukuoka', '92-###'],
    ],
    streets: ['Ginza', 'Jingumae', 'Shinjuku', 'Umeda', 'Sakae', 'Nishiki', 'Tenjin'],
    style: 'A',
    postal: '%##-####',
    phone: '+81 {a}-####',
    house: '%-%-%',
  },
  MX: {
    cities: [
      ['Mexico City', '55'],
      ['Guadalajara', '33'],
      ['Monterrey', '81'],
    ],
    streets: ['Avenida Reforma', 'Calle Madero', 'Avenida Insurgentes Sur', 'Calle Hidalgo', 'Avenida Juárez'],
    style: 'B',
    postal: '#####',
    phone: '+52 {a} #### ####',
    houseMax: 1500,
  },
  IE: {
    cities: [
      ['Dublin', '1'],
      ['Cork', '21'],
      ['Galway', '91'],
      ['Limerick', '61'],
    ],
    streets: ['Grafton Street', 'Main Street', 'Patrick Street', 'Shop Street', "O'Connell Street"],
    style: 'A',
    postal: '@%# @###',
    phone: '+353 {a} ### ####',
  },
  NZ: {
    cities: [
      ['Auckland', '9'],
      ['Wellington', '4'],
      ['Christchurch', '3'],
      ['Hamilton', '7'],
    ],
    streets: ['Queen Street', 'Lambton Quay', 'Cuba Street', 'Colombo Street', 'Ponsonby Road'],
    style: 'A',
    postal: '%###',
    phone: '+64 {a} ### ####',
  },
  SE: {
    cities: [
      ['Stockholm', '8'],
      ['Gothenburg', '31'],
      ['Malmö', '40'],
      ['Uppsala', '18'],
    ],
    streets: ['Drottninggatan', 'Storgatan', 'Kungsgatan', 'Vasagatan', 'Södra Vägen'],
    style: 'B',
    postal: '%## ##',
    phone: '+46 {a} ### ## ##',
  },
  CH: {
    cities: [
      ['Zurich', '44'],
      ['Geneva', '22'],
      ['Basel', '61'],
      ['Bern', '31'],
      ['Lausanne', '21'],
    ],
    streets: ['Bahnhofstrasse', 'Hauptstrasse', 'Rue du Rhône', 'Marktgasse', 'Dorfstrasse'],
    style: 'B',
    postal: '%###',
    phone: '+41 {a} ### ## ##',
  },
  AT: {
    cities: [
      ['Vienna', '1'],
      ['Graz', '316'],
      ['Salzburg', '662'],
      ['Linz', '732'],
      ['Innsbruck', '512'],
    ],
    streets: ['Hauptstraße', 'Mariahilfer Straße', 'Kärntner Straße', 'Getreidegasse', 'Landstraße'],
    style: 'B',
    postal: '%###',
    phone: '+43 {a} ### ####',
  },
  BE: {
    cities: [
      ['Brussels', '2'],
      ['Antwerp', '3'],
      ['Ghent', '9'],
      ['Liège', '4'],
    ],
    streets: ['Rue Neuve', 'Meir', 'Veldstraat', 'Avenue Louise', 'Kerkstraat'],
    style: 'B',
    postal: '%###',
    phone: '+32 {a} ### ## ##',
  },
  PL: {
    cities: [
      ['Warsaw', '22'],
      ['Kraków', '12'],
      ['Wrocław', '71'],
      ['Gdańsk', '58'],
      ['Poznań', '61'],
    ],
    streets: ['ul. Marszałkowska', 'ul. Floriańska', 'ul. Długa', 'ul. Piotrkowska', 'ul. Świdnicka'],
    style: 'B',
    postal: '##-###',
    phone: '+48 {a} ### ## ##',
  },
  PT: {
    cities: [
      ['Lisbon', '21 ### ####'],
      ['Porto', '22 ### ####'],
      ['Braga', '253 ### ###'],
      ['Coimbra', '239 ### ###'],
    ],
    streets: ['Rua Augusta', 'Avenida da Liberdade', 'Rua de Santa Catarina', 'Rua do Carmo', 'Rua Direita'],
    style: 'B',
    postal: '%###-###',
    phone: '+351 {a}',
  },
  ZA: {
    cities: [
      ['Cape Town', '21'],
      ['Johannesburg', '11'],
      ['Durban', '31'],
      ['Pretoria', '12'],
    ],
    streets: ['Long Street', 'Main Road', 'Church Street', 'Jan Smuts Avenue', 'Florida Road'],
    style: 'A',
    postal: '%###',
    phone: '+27 {a} ### ####',
  },
  SG: {
    cities: [['Singapore', '6']],
    streets: ['Orchard Road', 'Bukit Timah Road', 'Tanjong Pagar Road', 'Serangoon Road', 'Jalan Besar'],
    style: 'A',
    postal: '%#####',
    phone: '+65 {a}### ####',
  },
  AE: {
    cities: [
      ['Dubai', '4'],
      ['Abu Dhabi', '2'],
      ['Sharjah', '6'],
    ],
    streets: ['Sheikh Zayed Road', 'Al Wasl Road', 'Jumeirah Beach Road', 'Corniche Road', 'Hamdan Street'],
    style: 'A',
    postal: '',
    phone: '+971 {a} ### ####',
  },
};

// Everywhere else: the calling code and a main city, with generic streets and no postal code.
const OTHER_COUNTRIES = new Map(
  (
    'KE 254 Nairobi|NG 234 Lagos|GH 233 Accra|EG 20 Cairo|MA 212 Casablanca|TR 90 Istanbul|GR 30 Athens|' +
    'DK 45 Copenhagen|NO 47 Oslo|FI 358 Helsinki|CZ 420 Prague|HU 36 Budapest|RO 40 Bucharest|BG 359 Sofia|' +
    'HR 385 Zagreb|RS 381 Belgrade|SK 421 Bratislava|SI 386 Ljubljana|UA 380 Kyiv|LU 352 Luxembourg|' +
    'IS 354 Reykjavík|EE 372 Tallinn|LV 371 Riga|LT 370 Vilnius|CY 357 Nicosia|MT 356 Valletta|IL 972 Tel Aviv|' +
    'SA 966 Riyadh|QA 974 Doha|KW 965 Kuwait City|CN 86 Shanghai|HK 852 Hong Kong|TW 886 Taipei|KR 82 Seoul|' +
    'TH 66 Bangkok|VN 84 Ho Chi Minh City|MY 60 Kuala Lumpur|ID 62 Jakarta|PH 63 Manila|PK 92 Karachi|' +
    'BD 880 Dhaka|LK 94 Colombo|AR 54 Buenos Aires|CL 56 Santiago|CO 57 Bogotá|PE 51 Lima|UY 598 Montevideo|' +
    'EC 593 Quito|CR 506 San José|PA 507 Panama City|PR 1 San Juan|RU 7 Moscow|KZ 7 Almaty'
  )
    .split('|')
    .map((entry) => {
      const [code = '', calling = '', ...city] = entry.split(' ');
      return [code, { calling, city: city.join(' ') }] as const;
    }),
);

const GENERIC_STREETS = ['Main Street', 'Market Street', 'Station Road', 'Central Avenue', 'Park Road', 'Harbour Road'];

export interface Locale {
  code: string;
  countryName: string;
  /** the country's main cities; empty when the sandbox knows none */
  cities: readonly string[];
  data: CountryData | null;
  /** the calling code of a country without a full profile, null when unknown */
  callingCode: string | null;
}

export function localeFor(code: string): Locale {
  const upper = code.toUpperCase();
  const data = COUNTRIES[upper] ?? null;
  const other = OTHER_COUNTRIES.get(upper);
  return {
    code: upper,
    countryName: countryName(upper),
    cities: data ? data.cities.map(([city]) => city) : other ? [other.city] : [],
    data,
    callingCode: data ? null : (other?.calling ?? null),
  };
}

/** The requested city as given, else one of the country's cities; null when the sandbox knows none. */
export function cityFor(locale: Locale, requested: string | null, rng: SeededRandom): string | null {
  if (requested) return requested;
  return locale.cities.length > 0 ? rng.pick(locale.cities) : null;
}

export function streetAddress(locale: Locale, city: string | null, rng: SeededRandom): string {
  const data = locale.data;
  const street = rng.pick(data?.streets ?? GENERIC_STREETS);
  const house = data?.house ? rng.fill(data.house) : String(rng.int(1, data?.houseMax ?? 250));
  const postal = data?.postal ? rng.fill(data.postal) : '';
  const place = [postal, city].filter(Boolean).join(' ');
  const cityLine = data?.style === 'A' || !data ? [city, postal].filter(Boolean).join(' ') : place;
  const streetLine = data?.style === 'B' ? `${street} ${house}` : `${house} ${street}`;
  return [streetLine, cityLine, locale.countryName].filter(Boolean).join(', ');
}

/** A number in the country's own format and calling code; null when the sandbox knows no calling code. */
export function phoneNumber(locale: Locale, city: string | null, rng: SeededRandom): string | null {
  const data = locale.data;
  if (!data) return locale.callingCode ? rng.fill(`+${locale.callingCode} %# ### ####`) : null;
  const known = city ? data.cities.find(([name]) => sameText(name, city)) : undefined;
  const area = (known ?? rng.pick(data.cities))[1];
  return rng.fill(data.phone.replace('{a}', area));
}

// One collator for the process: localeCompare with options builds a new one per call, which the
// profile showed as the sandbox's single largest cost.
const BASE_LETTERS = new Intl.Collator('en', { sensitivity: 'base' });

function sameText(a: string, b: string): boolean {
  return BASE_LETTERS.compare(a, b) === 0;
}
