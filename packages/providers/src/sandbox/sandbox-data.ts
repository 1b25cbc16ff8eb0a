import type { Seniority } from '@leadgen/domain';

export const FIRST_NAMES = [
  'James',
  'Maria',
  'Liam',
  'Sofia',
  'Noah',
  'Emma',
  'Lucas',
  'Olivia',
  'Mateo',
  'Ava',
  'Ethan',
  'Isabella',
  'Leon',
  'Mia',
  'Hugo',
  'Chloe',
  'Arjun',
  'Priya',
  'Kenji',
  'Yuki',
  'Daniel',
  'Sarah',
  'Tomás',
  'Elena',
  'Oliver',
  'Hannah',
  'Samuel',
  'Aisha',
  'Luca',
  'Grace',
  'Jonas',
  'Amara',
  'Felix',
  'Nora',
  'Rafael',
  'Ingrid',
] as const;

export const LAST_NAMES = [
  'Smith',
  'Garcia',
  'Müller',
  'Rossi',
  'Martin',
  'Johnson',
  'Silva',
  'Kowalski',
  'Nguyen',
  'Patel',
  'Tanaka',
  'Brown',
  'Dubois',
  'Jansen',
  'Lopez',
  'Schmidt',
  'Wilson',
  'Moreau',
  'Fischer',
  'Taylor',
  'Sato',
  'Kumar',
  'Anderson',
  'Novak',
  'Costa',
  'Bianchi',
  'Walker',
  'Meyer',
  'Clarke',
  'Reyes',
  'Okafor',
  'Lindqvist',
  'Haddad',
] as const;

/** words direct-to-consumer brands are made of */
export const BRAND_WORDS = [
  'Wild',
  'Golden',
  'North',
  'Little',
  'Salt',
  'Oak',
  'Honest',
  'Lucky',
  'Blue',
  'Maple',
  'Ember',
  'Fern',
  'Bloom',
  'Cedar',
  'Harbor',
  'Wren',
  'Juniper',
  'Atlas',
  'Sunday',
  'Kind',
  'Tide',
  'Meadow',
  'Copper',
  'Willow',
  'Pine',
  'Lumen',
  'Moss',
  'Field',
  'River',
  'Stone',
  'Hazel',
  'Indigo',
  'Olive',
  'Saffron',
  'Birch',
  'Coral',
] as const;

export const STORE_SUFFIXES = ['Co.', 'Studio', 'Supply', 'Goods', 'Shop', 'House', 'Collective', 'Lab', 'Works', 'Company'] as const;

/** the people an online shop's contact data usually names */
export const STORE_ROLES = [
  'Founder',
  'Co-Founder',
  'CEO',
  'Owner',
  'Head of Marketing',
  'Head of E-commerce',
  'Marketing Manager',
  'Operations Manager',
  'Creative Director',
  'Head of Growth',
  'Customer Experience Manager',
  'COO',
] as const;

export const TITLES_BY_SENIORITY: Record<Seniority, readonly string[]> = {
  owner: ['Owner', 'Co-Owner'],
  founder: ['Founder', 'Co-Founder', 'Founder & CEO'],
  c_suite: ['Chief Executive Officer', 'Chief Operating Officer', 'Chief Financial Officer', 'Chief Marketing Officer'],
  partner: ['Partner', 'Managing Partner'],
  vp: ['VP of Sales', 'VP of Operations', 'VP of Marketing'],
  head: ['Head of Sales', 'Head of Marketing', 'Head of Operations'],
  director: ['Director of Operations', 'Sales Director', 'Marketing Director'],
  manager: ['Office Manager', 'Marketing Manager', 'Operations Manager', 'Practice Manager'],
  senior: ['Senior Account Executive', 'Senior Consultant', 'Senior Associate'],
  entry: ['Sales Associate', 'Marketing Coordinator', 'Customer Success Associate'],
  intern: ['Marketing Intern', 'Business Development Intern'],
};

// Ordered: "Founder & CEO" is a founder, "VP of Marketing" a vp before it is anything else.
const SENIORITY_HINTS: ReadonlyArray<readonly [RegExp, Seniority]> = [
  [/\bintern\b/, 'intern'],
  [/\bfounder\b/, 'founder'],
  [/\bowner\b/, 'owner'],
  [/\b(ceo|cfo|coo|cto|cmo|cio|chief)\b/, 'c_suite'],
  [/\bpartner\b/, 'partner'],
  [/\b(vp|vice president)\b/, 'vp'],
  [/\bhead\b/, 'head'],
  [/\bdirector\b/, 'director'],
  [/\bmanager\b/, 'manager'],
  [/\b(senior|sr\.?|lead|principal)\b/, 'senior'],
  [/\b(associate|assistant|junior|coordinator)\b/, 'entry'],
];

/** The seniority a people-data upstream would infer from a free-text title; null when it says nothing. */
export function inferSeniority(title: string): Seniority | null {
  const lower = title.toLowerCase();
  return SENIORITY_HINTS.find(([pattern]) => pattern.test(lower))?.[1] ?? null;
}

/** lower-case ASCII words joined by dashes, fit for a host name or a profile path */
export function slugify(text: string, maxLength = 40): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, maxLength)
    .replace(/^-+|-+$/g, '');
}

export function titleCase(text: string): string {
  return text
    .split(/\s+/)
    .filter((word) => word.length > 0)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** A city typed all lower case is shown as a name; anything else the caller capitalised is kept. */
export function displayCity(city: string | undefined): string | null {
  const trimmed = city?.trim();
  if (!trimmed) return null;
  return trimmed === trimmed.toLowerCase() ? titleCase(trimmed) : trimmed;
}
