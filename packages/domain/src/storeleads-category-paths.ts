import taxonomy from './storeleads-categories.json';

/**
 * Store Leads' category taxonomy (its `categories` field and the `f:cat` filter), shipped as data
 * with its sources and date (storeleads-categories.json): every top-level and second-level path,
 * and the third-level ones a Store Leads source shows. Free text is mapped onto these paths by
 * storeleads-category-match.ts; a text that names none is refused, never sent as a guessed path.
 */
export const STORELEADS_CATEGORY_PATHS: readonly string[] = taxonomy.paths;
export const STORELEADS_TAXONOMY_RETRIEVED: string = taxonomy.retrieved;
export const STORELEADS_TAXONOMY_SOURCES: Readonly<Record<string, string>> = taxonomy.sources;

const CONFIRMED: Readonly<Record<string, string>> = taxonomy.confirmed;
const SPELLINGS: Readonly<Record<string, { alternatives: string[]; why: string }>> = taxonomy.spellings;

/** "/Home & Garden/Kitchen & Dining" → "Kitchen & Dining" */
export function categoryName(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}

/** "/Home & Garden/Kitchen & Dining" → "Home & Garden > Kitchen & Dining" */
export function categoryLabel(path: string): string {
  return path.split('/').filter(Boolean).join(' > ');
}

/** Whether a Store Leads source shows the path as spelled (else it is derived from Google's list). */
export function isConfirmedCategory(path: string): boolean {
  return path in CONFIRMED;
}

/**
 * Every spelling of a path: the shipped one first, then the ones a source also allows where its
 * exact spelling is not confirmed (an apostrophe, the 2017 vs 2022 Google name).
 */
export function categorySpellings(path: string): string[] {
  return [path, ...(SPELLINGS[path]?.alternatives ?? [])];
}

/** Why a path's spelling is uncertain, or null when it is not. */
export function categorySpellingDoubt(path: string): string | null {
  return SPELLINGS[path]?.why ?? null;
}

/** Apostrophes and case folded, so "/apparel/women’s clothing/" finds its path. */
function pathKey(path: string): string {
  return `/${path
    .trim()
    .replace(/[’‘`´]/g, "'")
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map((s) => s.trim())
    .join('/')}`.toLowerCase();
}

const BY_SPELLING = new Map<string, string>();
for (const path of STORELEADS_CATEGORY_PATHS) {
  for (const spelling of categorySpellings(path)) BY_SPELLING.set(pathKey(spelling), path);
}

/** The shipped path a path-shaped text names in any accepted spelling ("Home & Garden > Bed & Bath" too), or null. */
export function findCategoryPath(text: string): string | null {
  return BY_SPELLING.get(pathKey(text.split('>').join('/'))) ?? null;
}

/**
 * The `f:cat` value for the chosen paths and whether it needs `f:cat:op=or`. Store Leads takes
 * several values comma-separated, matched all together unless `f:cat:op` says otherwise (UPSTREAM.md).
 * Every comma-free spelling of every path goes in, so an unconfirmed spelling cannot empty the job;
 * a path whose only spelling has a comma cannot share the filter and is sent alone.
 */
export function categoryFilter(paths: readonly string[]): { value: string; anyOf: boolean } {
  const values: string[] = [];
  for (const path of paths) {
    const spellings = categorySpellings(path);
    const commaFree = spellings.filter((s) => !s.includes(','));
    if (commaFree.length === 0) return { value: path, anyOf: false };
    for (const s of commaFree) if (!values.includes(s)) values.push(s);
  }
  return { value: values.join(','), anyOf: values.length > 1 };
}
