import { titleCase } from './sandbox-data';

/** What the sandbox knows about a line of business, to name its businesses and shops believably. */
export interface CategoryProfile {
  /** trade words a business of this kind puts in its name: "Dental", "Dentistry" */
  nouns: readonly string[];
  /** name openings typical of the trade: "Bright Smile" */
  prefixes: readonly string[];
  /** neighbouring categories a listing may also carry */
  related: readonly string[];
  /** the LinkedIn-style industry of such a company */
  industry: string;
  /** words an online shop of this kind puts in its brand */
  goods: readonly string[];
}

type Known = CategoryProfile & { match: RegExp };

// First match wins, so the narrower patterns (cosmetics) come before the broader ones (beauty salons).
const KNOWN: readonly Known[] = [
  {
    match: /dent|orthodont/,
    nouns: ['Dental', 'Dentistry', 'Dental Care', 'Dental Studio', 'Dental Clinic'],
    prefixes: ['Bright Smile', 'Gentle Care', 'Pearl', 'Smile Design', 'Happy Tooth'],
    related: ['cosmetic dentistry', 'orthodontics', 'dental clinic', 'emergency dental service'],
    industry: 'Medical Practices',
    goods: ['Smile', 'Floss', 'Pearl'],
  },
  {
    match: /caf[eé]|coffee|espresso/,
    nouns: ['Coffee', 'Café', 'Coffee House', 'Roasters', 'Espresso Bar'],
    prefixes: ['Daily Grind', 'Bean There', 'Morning Ritual', 'Black Cat', 'Steam'],
    related: ['espresso bar', 'bakery', 'breakfast', 'coffee roaster'],
    industry: 'Food and Beverage Services',
    goods: ['Coffee', 'Roast', 'Bean'],
  },
  {
    match: /bak(e|ery)|pastr|patisserie|cake/,
    nouns: ['Bakery', 'Bakehouse', 'Patisserie', 'Bread Co.'],
    prefixes: ['Golden Crust', 'Flour & Salt', 'Rise', 'Sweet Crumb', 'Rolling Pin'],
    related: ['cake shop', 'pastry', 'sourdough', 'café'],
    industry: 'Food and Beverage Manufacturing',
    goods: ['Bake', 'Crumb', 'Flour'],
  },
  {
    match: /restaurant|bistro|diner|food|eatery|pizz|sushi|grill/,
    nouns: ['Kitchen', 'Bistro', 'Grill', 'Eatery', 'Table'],
    prefixes: ['The Hungry', 'Olive', 'Copper Pot', 'Blue Plate', 'Harvest'],
    related: ['takeaway', 'brunch', 'fine dining', 'catering'],
    industry: 'Restaurants',
    goods: ['Kitchen', 'Pantry', 'Spice'],
  },
  {
    match: /plumb/,
    nouns: ['Plumbing', 'Plumbing & Heating', 'Plumbers', 'Drain Services'],
    prefixes: ['Reliable', 'Rapid Flow', 'Pipeline', 'True Level', 'ProFlow'],
    related: ['emergency plumber', 'drain cleaning', 'water heater repair', 'heating'],
    industry: 'Construction',
    goods: ['Pipe', 'Tap', 'Flow'],
  },
  {
    match: /electric/,
    nouns: ['Electric', 'Electrical', 'Electricians', 'Electrical Services'],
    prefixes: ['Bright Spark', 'Live Wire', 'Volt', 'Current', 'PowerLine'],
    related: ['lighting installation', 'EV charger installation', 'rewiring'],
    industry: 'Construction',
    goods: ['Volt', 'Spark', 'Light'],
  },
  {
    match: /law|attorney|solicitor|legal|notar/,
    nouns: ['Law', 'Legal', 'Law Group', 'Law Office', 'Attorneys'],
    prefixes: ['Justice', 'Liberty', 'Sterling', 'Keystone', 'Fairway'],
    related: ['family law', 'estate planning', 'personal injury', 'business law'],
    industry: 'Law Practice',
    goods: ['Legal', 'Contract', 'Brief'],
  },
  {
    match: /account|bookkeep|tax|cpa|audit/,
    nouns: ['Accounting', 'Tax Services', 'Bookkeeping', 'Accountants'],
    prefixes: ['Ledger', 'Balance', 'Clear Books', 'Summit', 'TrueNorth'],
    related: ['tax preparation', 'payroll', 'bookkeeping', 'financial planning'],
    industry: 'Accounting',
    goods: ['Ledger', 'Balance', 'Tally'],
  },
  {
    match: /real ?estate|realtor|propert|realty/,
    nouns: ['Realty', 'Real Estate', 'Properties', 'Homes', 'Property Group'],
    prefixes: ['Keystone', 'Hearth', 'Open Door', 'Cornerstone', 'Blue Door'],
    related: ['property management', 'home sales', 'rentals', 'commercial real estate'],
    industry: 'Real Estate',
    goods: ['Home', 'Nest', 'Key'],
  },
  {
    match: /gym|fitness|yoga|pilates|crossfit|personal train/,
    nouns: ['Fitness', 'Gym', 'Athletics', 'Training', 'Studio'],
    prefixes: ['Iron', 'Peak', 'Core', 'Pulse', 'Elevate'],
    related: ['personal training', 'yoga', 'pilates', 'group classes'],
    industry: 'Wellness and Fitness Services',
    goods: ['Fit', 'Move', 'Strong'],
  },
  {
    match: /cosmetic|skin ?care|makeup|perfume/,
    nouns: ['Skincare', 'Cosmetics', 'Beauty Bar'],
    prefixes: ['Glow', 'Pure', 'Dew', 'Radiant', 'Bare'],
    related: ['skincare', 'makeup', 'natural cosmetics'],
    industry: 'Personal Care Product Manufacturing',
    goods: ['Glow', 'Skin', 'Balm', 'Serum'],
  },
  {
    match: /salon|hair|barber|beauty|spa|nail/,
    nouns: ['Salon', 'Hair Studio', 'Beauty', 'Barbers', 'Spa'],
    prefixes: ['Glow', 'Shear Genius', 'Luxe', 'Velvet', 'Mane Street'],
    related: ['hair salon', 'barber', 'nail salon', 'day spa'],
    industry: 'Personal Care Services',
    goods: ['Glow', 'Beauty', 'Curl'],
  },
  {
    match: /auto|car |cars|mechanic|garage|tire|tyre/,
    nouns: ['Auto Repair', 'Motors', 'Auto Care', 'Garage', 'Autoworks'],
    prefixes: ['Precision', 'Main Street', 'Turbo', 'Pit Stop', 'All Star'],
    related: ['oil change', 'brake repair', 'tyre shop', 'car service'],
    industry: 'Automotive',
    goods: ['Auto', 'Motor', 'Garage'],
  },
  {
    match: /hotel|hostel|\binn\b|lodg|b&b|bed and breakfast/,
    nouns: ['Hotel', 'Inn', 'Suites', 'Lodge', 'Boutique Hotel'],
    prefixes: ['Grand', 'Harbour View', 'Park', 'Royal', 'Parkside'],
    related: ['boutique hotel', 'bed and breakfast', 'conference venue'],
    industry: 'Hospitality',
    goods: ['Stay', 'Travel', 'Linen'],
  },
  {
    match: /flor|flower/,
    nouns: ['Flowers', 'Florist', 'Floral Design', 'Blooms'],
    prefixes: ['Petal & Stem', 'Wildflower', 'Rosewood', 'Bloom Room', 'Fleur'],
    related: ['wedding flowers', 'flower delivery', 'plants'],
    industry: 'Retail',
    goods: ['Bloom', 'Petal', 'Flora'],
  },
  {
    match: /\bvet|animal|\bpets?\b/,
    nouns: ['Veterinary Clinic', 'Animal Hospital', 'Vets', 'Pet Care'],
    prefixes: ['Happy Paws', 'Kind Hearts', 'Four Paws', 'Whiskers', 'Companion'],
    related: ['pet grooming', 'animal hospital', 'pet supplies'],
    industry: 'Veterinary Services',
    goods: ['Paw', 'Pet', 'Tail'],
  },
  {
    match: /cloth|fashion|apparel|boutique|wear|shoe/,
    nouns: ['Boutique', 'Clothing', 'Apparel', 'Outfitters'],
    prefixes: ['Thread', 'Loom', 'Urban', 'Linen Lane', 'Stitch'],
    related: ['womenswear', 'menswear', 'accessories', 'streetwear'],
    industry: 'Retail Apparel and Fashion',
    goods: ['Thread', 'Apparel', 'Knit', 'Denim'],
  },
  {
    match: /jewel/,
    nouns: ['Jewelers', 'Jewellery', 'Jewelry Studio'],
    prefixes: ['Gilded', 'Silver Lining', 'Aurum', 'Gemstone', 'Facet'],
    related: ['engagement rings', 'watches', 'custom jewellery'],
    industry: 'Retail Luxury Goods and Jewelry',
    goods: ['Gem', 'Gold', 'Silver', 'Charm'],
  },
  {
    match: /candle|decor|furniture|interior|homeware/,
    nouns: ['Home', 'Interiors', 'Living', 'Home Goods'],
    prefixes: ['Hearth', 'Nest', 'Oak & Ash', 'Willow', 'Haven'],
    related: ['home decor', 'candles', 'furniture', 'homeware'],
    industry: 'Retail',
    goods: ['Candle', 'Home', 'Nest', 'Wick'],
  },
  {
    match: /software|saas|tech|it services|web|developer/,
    nouns: ['Software', 'Technologies', 'Labs', 'Digital', 'Systems'],
    prefixes: ['Bright', 'Nimbus', 'Vector', 'Pixel', 'Stack'],
    related: ['web development', 'cloud services', 'IT consulting'],
    industry: 'Software Development',
    goods: ['Code', 'Pixel', 'Byte'],
  },
  {
    match: /marketing|advertis|agency|seo|branding/,
    nouns: ['Marketing', 'Media', 'Agency', 'Creative', 'Digital'],
    prefixes: ['Spark', 'Amplify', 'Northstar', 'Bold', 'Brightline'],
    related: ['digital marketing', 'SEO', 'social media marketing', 'branding'],
    industry: 'Advertising Services',
    goods: ['Brand', 'Spark', 'Ink'],
  },
  {
    match: /construct|builder|roof|contractor|renovat/,
    nouns: ['Construction', 'Builders', 'Contracting', 'Roofing', 'Renovations'],
    prefixes: ['Solid Ground', 'Keystone', 'Ironclad', 'Summit', 'Foundation'],
    related: ['general contractor', 'roofing', 'home renovation', 'remodeling'],
    industry: 'Construction',
    goods: ['Build', 'Brick', 'Timber'],
  },
];

export const GENERIC_PREFIXES = [
  'Downtown',
  'Northside',
  'Premier',
  'Evergreen',
  'Summit',
  'Riverside',
  'Central',
  'Oakwood',
  'Parkview',
  'Sunrise',
  'Cornerstone',
];

export function categoryProfile(category: string): CategoryProfile {
  const lower = category.toLowerCase();
  const known = KNOWN.find((profile) => profile.match.test(lower));
  if (known) return known;
  // An unknown trade is named after itself: "yoga studio" gives "Evergreen Yoga Studio".
  const label = titleCase(category.trim()) || 'Business';
  return {
    nouns: [label, `${label} Co.`, `${label} Group`],
    prefixes: GENERIC_PREFIXES,
    related: [],
    industry: label,
    goods: [singular(label.split(' ').at(-1) ?? label)],
  };
}

function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/[^s]s$/i.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}
