import { ENGLISH_LEXICON, type LexiconEntry } from './storeleads-category-lexicon';
import { INTERNATIONAL_LEXICON } from './storeleads-category-lexicon-intl';
import { categoryName, categorySpellings, findCategoryPath, STORELEADS_CATEGORY_PATHS } from './storeleads-category-paths';

// Words that say nothing of what a shop sells, in the lexicon's languages.
const STOP_WORDS = new Set(
  (
    'a an and the of for with in on by to my our your store stores shop shops online ecommerce commerce brand brands ' +
    'product products item items company retailer seller selling sell merchant boutique boutiques website site ' +
    'und fur mit der die das den laden geschaft onlineshop et pour avec de du des le la les en magasin y para con el los las ' +
    'del tienda per con di il lo gli negozio een het voor met van winkel webshop do dos da das loja och for med butik ' +
    'og til med nettbutikk nettbutik i dla z sklep'
  ).split(' '),
);

// Words and marks that join a list ("candles & furniture", "Kaffee und Tee"): each item is a category.
const LIST_JOINERS = new Set('and und et y e i og och en'.split(' '));

interface Token {
  word: string;
  /** which item of a list the word belongs to */
  item: number;
}

/** "Women’s Shoes & Sneakers" → ["women", "shoe", "sneaker"]: accents, case, possessives and plurals folded. */
export function normalisedWords(text: string): string[] {
  return tokens(text).map((t) => t.word);
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let item = 0;
  for (const raw of folded(text).split(/([,;/+&|]|[^a-z0-9,;/+&|]+)/)) {
    if (raw === '' || /^[^a-z0-9,;/+&|]+$/.test(raw)) continue;
    if (/^[,;/+&|]$/.test(raw) || LIST_JOINERS.has(raw)) {
      item++;
      continue;
    }
    if (!STOP_WORDS.has(raw)) out.push({ word: singular(raw), item });
  }
  return out;
}

function folded(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/'s\b/g, 's')
    .replace(/ß/g, 'ss')
    .replace(/ø/g, 'o')
    .replace(/æ/g, 'ae')
    .replace(/ł/g, 'l');
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && /(?:ss|us|is)$/.test(word)) return word;
  if (word.length > 3 && word.endsWith('s')) return ie(word.slice(0, -1));
  return ie(word);
}

// "hoodies" loses its plural as "hoody", so "hoodie" is "hoody" too.
function ie(word: string): string {
  return word.length > 4 && word.endsWith('ie') ? `${word.slice(0, -2)}y` : word;
}

interface Sense {
  paths: Set<string>;
  weak: boolean;
}

// Phrase (normalised words joined by spaces) → the paths it means. The buyers' lexicon first, since
// it says what a bare word means ("pets" is the whole branch, not its Pets child); then every path's
// own names, so "kitchen & dining" names its path (a whole label is findCategoryPath's).
const PHRASES = new Map<string, Sense>();
function add(phrase: string, paths: readonly string[], weak: boolean, fromLexicon: boolean): void {
  const key = normalisedWords(phrase).join(' ');
  if (key === '') return;
  const sense = PHRASES.get(key);
  if (sense === undefined) PHRASES.set(key, { paths: new Set(paths), weak });
  else if (fromLexicon && sense.weak && !weak) PHRASES.set(key, { paths: new Set(paths), weak });
  else if (fromLexicon && sense.weak === weak) for (const p of paths) sense.paths.add(p);
}
for (const entry of [...ENGLISH_LEXICON, ...INTERNATIONAL_LEXICON] as LexiconEntry[]) {
  for (const term of entry.terms.split('|')) add(term, entry.paths, entry.weak === true, true);
}
for (const path of STORELEADS_CATEGORY_PATHS) {
  for (const spelling of categorySpellings(path)) add(categoryName(spelling), [path], false, false);
}
const LONGEST = Math.max(...[...PHRASES.keys()].map((k) => k.split(' ').length));
const SINGLE_WORDS = [...PHRASES.keys()].filter((k) => !k.includes(' '));

/**
 * The phrases found in the words, longest first, without overlap (a phrase may span a list joiner:
 * "bath and body"); a word no phrase holds is tried for a typo. Each sense is placed at its last word.
 */
function senses(text: string): Array<Sense & { at: number; item: number }> {
  const tokenList = tokens(text);
  const words = tokenList.map((t) => t.word);
  const found: Array<Sense & { at: number; item: number }> = [];
  const used = new Array<boolean>(words.length).fill(false);
  for (let n = Math.min(LONGEST, words.length); n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      if (used.slice(i, i + n).some(Boolean)) continue;
      const sense = PHRASES.get(words.slice(i, i + n).join(' '));
      if (sense === undefined) continue;
      found.push({ ...sense, at: i + n - 1, item: tokenList[i + n - 1]!.item });
      for (let j = i; j < i + n; j++) used[j] = true;
    }
  }
  // Only a text that names nothing is read for typos: "heating and cooling" is no cooking.
  if (found.length > 0) return found;
  words.forEach((word, i) => {
    // A typo keeps its first letter and most of its length ("jewlery"); "plumber" is no "lumber".
    if (word.length < 6) return;
    const near = SINGLE_WORDS.filter(
      (k) => k[0] === word[0] && k.length >= 6 && Math.abs(k.length - word.length) <= 1 && editDistance(k, word, 1) <= 1,
    );
    if (near.length === 1) found.push({ ...PHRASES.get(near[0]!)!, at: i, item: tokenList[i]!.item });
  });
  return found;
}

/** Edit distance counting a swap of neighbours as one edit (optimal string alignment), given up past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
    if (Math.min(...d[i]!) > limit) return limit + 1;
  }
  return d[a.length]![b.length]!;
}

/** At most this many paths go into one filter: past it the text names no category in particular. */
export const MAX_CATEGORY_PATHS = 4;

/**
 * The Store Leads paths a free-text category names, or [] when it names none.
 * A path in any accepted spelling ("/Toys", "Home & Garden > Bed & Bath") is that path; otherwise the
 * text's words are read against the paths' own names and the buyers' lexicon (several languages).
 * Several paths when the text is ambiguous or names several ("coffee and tea", "baby"); a top-level
 * path when only that is named ("home and garden"). Weak words ("women's") decide only alone.
 */
export function matchCategoryPaths(category: string): string[] {
  const direct = findCategoryPath(category);
  if (direct !== null) return [direct];
  const found = senses(category);
  const strong = found.filter((s) => !s.weak);
  // In each item of a list the last word is the thing sold and the words before it describe it
  // ("gym clothes", "kitchen knives", "flower seeds"); the items of a list are each a category.
  const heads = new Map<number, Sense & { at: number }>();
  for (const sense of strong.length > 0 ? strong : found) {
    const seen = heads.get(sense.item);
    if (seen === undefined || sense.at > seen.at) heads.set(sense.item, sense);
  }
  // A list naming a branch and one of its paths ("apparel & footwear") keeps both: whether Store Leads'
  // filter on a branch takes its paths' stores is not documented (UPSTREAM.md), and any one is enough.
  const paths = [...new Set<string>([...heads.values()].flatMap((s) => [...s.paths]))];
  paths.sort((a, b) => STORELEADS_CATEGORY_PATHS.indexOf(a) - STORELEADS_CATEGORY_PATHS.indexOf(b));
  return paths.length > MAX_CATEGORY_PATHS ? [] : paths;
}

function trigrams(text: string): Set<string> {
  const padded = `  ${normalisedWords(text).join(' ')} `;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) grams.add(padded.slice(i, i + 3));
  return grams;
}

function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

const NAMES = [...PHRASES.entries()].map(([phrase, sense]) => ({ grams: trigrams(phrase), paths: [...sense.paths] }));

/** The `count` paths whose names or buyers' words look most like the text: what a refusal suggests. */
export function nearestCategoryPaths(category: string, count = 3): string[] {
  const grams = trigrams(category);
  const best = new Map<string, number>();
  for (const name of NAMES) {
    const score = similarity(grams, name.grams);
    for (const path of name.paths) if (score > (best.get(path) ?? -1)) best.set(path, score);
  }
  return [...best.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([path]) => path);
}
