/**
 * People Data Labs' canonical `industry` values (LinkedIn's industry list, lower case), as PDL
 * publishes them (see UPSTREAM.md). `industry` is an exact keyword field: a value outside this
 * list matches nobody, so free text is mapped onto it first.
 */
export const PDL_INDUSTRIES: readonly string[] = [
  'accounting', 'airlines/aviation', 'alternative dispute resolution', 'alternative medicine', 'animation',
  'apparel & fashion', 'architecture & planning', 'arts and crafts', 'automotive', 'aviation & aerospace',
  'banking', 'biotechnology', 'broadcast media', 'building materials', 'business supplies and equipment',
  'capital markets', 'chemicals', 'civic & social organization', 'civil engineering', 'commercial real estate',
  'computer & network security', 'computer games', 'computer hardware', 'computer networking', 'computer software',
  'construction', 'consumer electronics', 'consumer goods', 'consumer services', 'cosmetics', 'dairy',
  'defense & space', 'design', 'e-learning', 'education management', 'electrical/electronic manufacturing',
  'entertainment', 'environmental services', 'events services', 'executive office', 'facilities services',
  'farming', 'financial services', 'fine art', 'fishery', 'food & beverages', 'food production', 'fund-raising',
  'furniture', 'gambling & casinos', 'glass, ceramics & concrete', 'government administration',
  'government relations', 'graphic design', 'health, wellness and fitness', 'higher education',
  'hospital & health care', 'hospitality', 'human resources', 'import and export', 'individual & family services',
  'industrial automation', 'information services', 'information technology and services', 'insurance',
  'international affairs', 'international trade and development', 'internet', 'investment banking',
  'investment management', 'judiciary', 'law enforcement', 'law practice', 'legal services', 'legislative office',
  'leisure, travel & tourism', 'libraries', 'logistics and supply chain', 'luxury goods & jewelry', 'machinery',
  'management consulting', 'maritime', 'market research', 'marketing and advertising',
  'mechanical or industrial engineering', 'media production', 'medical devices', 'medical practice',
  'mental health care', 'military', 'mining & metals', 'motion pictures and film', 'museums and institutions',
  'music', 'nanotechnology', 'newspapers', 'non-profit organization management', 'oil & energy', 'online media',
  'outsourcing/offshoring', 'package/freight delivery', 'packaging and containers', 'paper & forest products',
  'performing arts', 'pharmaceuticals', 'philanthropy', 'photography', 'plastics', 'political organization',
  'primary/secondary education', 'printing', 'professional training & coaching', 'program development',
  'public policy', 'public relations and communications', 'public safety', 'publishing', 'railroad manufacture',
  'ranching', 'real estate', 'recreational facilities and services', 'religious institutions',
  'renewables & environment', 'research', 'restaurants', 'retail', 'security and investigations', 'semiconductors',
  'shipbuilding', 'sporting goods', 'sports', 'staffing and recruiting', 'supermarkets', 'telecommunications',
  'textiles', 'think tanks', 'tobacco', 'translation and localization', 'transportation/trucking/railroad',
  'utilities', 'venture capital & private equity', 'veterinary', 'warehousing', 'wholesale', 'wine and spirits',
  'wireless', 'writing and editing',
];

// What people type for an industry whose own words differ. Values are canonical industries.
const SYNONYMS: Record<string, string> = {
  dentist: 'medical practice', dental: 'medical practice', doctor: 'medical practice', physician: 'medical practice',
  clinic: 'medical practice', orthodontist: 'medical practice', chiropractor: 'alternative medicine',
  physiotherapist: 'health, wellness and fitness', gym: 'health, wellness and fitness', fitness: 'health, wellness and fitness',
  spa: 'health, wellness and fitness', salon: 'health, wellness and fitness', yoga: 'health, wellness and fitness',
  hospital: 'hospital & health care', healthcare: 'hospital & health care', nurse: 'hospital & health care',
  therapist: 'mental health care', psychologist: 'mental health care',
  lawyer: 'law practice', attorney: 'law practice', law: 'law practice', solicitor: 'law practice', legal: 'legal services',
  accountant: 'accounting', bookkeeping: 'accounting', tax: 'accounting', cpa: 'accounting',
  software: 'computer software', saas: 'computer software', app: 'computer software', developer: 'computer software',
  it: 'information technology and services', tech: 'information technology and services', cybersecurity: 'computer & network security',
  ecommerce: 'internet', web: 'internet',
  marketing: 'marketing and advertising', advertising: 'marketing and advertising', agency: 'marketing and advertising', seo: 'marketing and advertising',
  pr: 'public relations and communications',
  restaurant: 'restaurants', cafe: 'restaurants', bar: 'restaurants', catering: 'food & beverages', bakery: 'food & beverages',
  hotel: 'hospitality', motel: 'hospitality', hostel: 'hospitality', travel: 'leisure, travel & tourism', tourism: 'leisure, travel & tourism',
  plumber: 'construction', plumbing: 'construction', electrician: 'construction', roofing: 'construction', builder: 'construction', contractor: 'construction',
  realtor: 'real estate', realty: 'real estate', property: 'real estate', estate: 'real estate',
  bank: 'banking', fintech: 'financial services', finance: 'financial services', insurer: 'insurance',
  recruiting: 'staffing and recruiting', recruiter: 'staffing and recruiting', staffing: 'staffing and recruiting', hr: 'human resources',
  consulting: 'management consulting', consultant: 'management consulting',
  vet: 'veterinary', veterinarian: 'veterinary',
  school: 'primary/secondary education', university: 'higher education', college: 'higher education', edtech: 'e-learning',
  pharma: 'pharmaceuticals', pharmacy: 'pharmaceuticals', biotech: 'biotechnology',
  trucking: 'transportation/trucking/railroad', logistics: 'logistics and supply chain', shipping: 'package/freight delivery',
  architect: 'architecture & planning', photographer: 'photography', designer: 'design', printer: 'printing',
  car: 'automotive', auto: 'automotive', dealership: 'automotive', mechanic: 'automotive',
  fashion: 'apparel & fashion', clothing: 'apparel & fashion', jewelry: 'luxury goods & jewelry', jeweller: 'luxury goods & jewelry',
  solar: 'renewables & environment', energy: 'oil & energy', telecom: 'telecommunications', nonprofit: 'non-profit organization management',
  charity: 'non-profit organization management', church: 'religious institutions', winery: 'wine and spirits', brewery: 'wine and spirits',
  farm: 'farming', agriculture: 'farming', film: 'motion pictures and film', game: 'computer games', gaming: 'computer games',
};

const STOP_WORDS = new Set(['and', 'the', 'of', 'for', 'a', 'an', 'services', 'service', 'company', 'companies', 'firm', 'firms', 'industry', 'business', 'businesses']);

function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .map(singular);
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') && !/(?:ss|us|is|aas)$/.test(word) ? word.slice(0, -1) : word;
}

const INDEX = PDL_INDUSTRIES.map((industry) => ({ industry, words: new Set(words(industry)) }));

/**
 * The canonical industry a free-text value names, or null. An exact canonical value is itself; then
 * a known synonym of any word; then the industry sharing the most words ("software" → "computer
 * software"), the one with fewer words of its own on a tie (the closer fit).
 */
export function canonicalIndustry(value: string): string | null {
  const lower = value.trim().toLowerCase();
  if (PDL_INDUSTRIES.includes(lower)) return lower;
  const wanted = words(lower);
  for (const word of wanted) {
    const synonym = SYNONYMS[word];
    if (synonym !== undefined) return synonym;
  }
  let best: { industry: string; score: number; size: number } | null = null;
  for (const entry of INDEX) {
    const score = wanted.filter((w) => entry.words.has(w)).length;
    if (score === 0) continue;
    if (best === null || score > best.score || (score === best.score && entry.words.size < best.size)) {
      best = { industry: entry.industry, score, size: entry.words.size };
    }
  }
  return best?.industry ?? null;
}
