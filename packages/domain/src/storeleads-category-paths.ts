import taxonomy from './storeleads-categories.json';

/**
 * Store Leads category paths (its `categories` field and the `f:cat` filter) that a public source
 * shows to exist: shipped as data with its sources and date (storeleads-categories.json). A free-text
 * category is matched to one of these by its words; one that matches none is refused, never sent
 * as a guessed path or left unfiltered (UPSTREAM.md).
 */
export const STORELEADS_CATEGORY_PATHS: readonly string[] = taxonomy.paths;
export const STORELEADS_TAXONOMY_RETRIEVED: string = taxonomy.retrieved;

// Words people type for a path whose own words differ. Keys and values are normalised words.
const SYNONYMS: Record<string, string[]> = {
  clothe: ['apparel'],
  clothing: ['apparel'],
  fashion: ['apparel'],
  garment: ['apparel'],
  wear: ['apparel'],
  boutique: ['apparel'],
  tshirt: ['apparel'],
  shirt: ['apparel'],
  dress: ['apparel'],
  shoe: ['apparel'],
  sneaker: ['apparel'],
  footwear: ['apparel'],
  makeup: ['make', 'cosmetic'],
  cosmetic: ['cosmetic'],
  lipstick: ['cosmetic'],
  beauty: ['beauty'],
  skincare: ['skin'],
  skin: ['skin'],
  nail: ['nail'],
  serum: ['skin'],
  moisturizer: ['skin'],
  lotion: ['body'],
  perfume: ['perfume'],
  fragrance: ['fragrance'],
  cologne: ['fragrance'],
  gym: ['fitness'],
  yoga: ['fitness'],
  workout: ['fitness'],
  supplement: ['nutrition'],
  vitamin: ['nutrition'],
  protein: ['nutrition'],
  nutritional: ['nutrition'],
};

const STOP_WORDS = new Set([
  'and',
  'the',
  'of',
  'for',
  'store',
  'stores',
  'shop',
  'shops',
  'online',
  'brand',
  'brands',
  'products',
  'product',
  'ecommerce',
  'e',
]);

/** "Shoes & Sneakers" → ["shoe", "sneaker"]: lower case, no accents, crude singular. */
export function normalisedWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/'s\b/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .map(singular);
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && /(?:ss|us|is)$/.test(word)) return word;
  if (word.length > 3 && word.endsWith('es') && /(?:ch|sh|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s')) return word.slice(0, -1);
  return word;
}

const INDEX = STORELEADS_CATEGORY_PATHS.map((path) => {
  const segments = path.split('/').filter(Boolean);
  return {
    path,
    leaf: new Set(normalisedWords(segments.at(-1) ?? '')),
    parents: new Set(segments.slice(0, -1).flatMap(normalisedWords)),
    depth: segments.length,
  };
});

/**
 * The Store Leads path a free-text category names, or null when no word of it matches any path.
 * A word in the path's last segment counts twice a word in a parent, so "apparel" is /Apparel and
 * "shoes" is /Apparel/Footwear; on a tie the more specific path wins, then the list's order.
 */
export function matchCategoryPath(category: string): string | null {
  const trimmed = category.trim();
  const exact = STORELEADS_CATEGORY_PATHS.find((p) => p.toLowerCase() === `/${trimmed.replace(/^\/+|\/+$/g, '')}`.toLowerCase());
  if (exact) return exact;
  const words = new Set(normalisedWords(trimmed).flatMap((w) => [w, ...(SYNONYMS[w] ?? [])]));
  let best: { path: string; score: number; depth: number } | null = null;
  for (const entry of INDEX) {
    let score = 0;
    for (const word of words) {
      if (entry.leaf.has(word)) score += 2;
      else if (entry.parents.has(word)) score += 1;
    }
    if (score === 0) continue;
    if (best === null || score > best.score || (score === best.score && entry.depth > best.depth)) {
      best = { path: entry.path, score, depth: entry.depth };
    }
  }
  return best?.path ?? null;
}
