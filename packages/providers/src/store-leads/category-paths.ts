/**
 * Store Leads category paths (its `categories` field and the `f:cat` filter), from the public
 * category list as remembered (see UPSTREAM.md): top levels and the second levels shops use most.
 * A free-text category is matched to one of these by its words; the API ignores a filter value
 * that is not one of its paths, so free text is never sent as it is.
 */
export const STORELEADS_CATEGORY_PATHS: readonly string[] = [
  '/Apparel',
  '/Apparel/Footwear',
  '/Apparel/Clothing Accessories',
  '/Apparel/Children\'s Clothing',
  '/Apparel/Men\'s Clothing',
  '/Apparel/Women\'s Clothing',
  '/Apparel/Swimwear',
  '/Apparel/Undergarments',
  '/Apparel/Uniforms & Workwear',
  '/Apparel/Outerwear',
  '/Apparel/Athletic Apparel',
  '/Apparel/Jewelry',
  '/Apparel/Eyewear',
  '/Apparel/Handbags & Purses',
  '/Apparel/Watches',
  '/Arts & Entertainment',
  '/Arts & Entertainment/Music & Audio',
  '/Arts & Entertainment/Visual Art & Design',
  '/Arts & Entertainment/Movies',
  '/Autos & Vehicles',
  '/Autos & Vehicles/Vehicle Parts & Accessories',
  '/Autos & Vehicles/Motorcycles',
  '/Autos & Vehicles/Bicycles & Accessories',
  '/Beauty & Fitness',
  '/Beauty & Fitness/Face & Body Care',
  '/Beauty & Fitness/Make-Up & Cosmetics',
  '/Beauty & Fitness/Skin Care',
  '/Beauty & Fitness/Hair Care',
  '/Beauty & Fitness/Perfumes & Fragrances',
  '/Beauty & Fitness/Fitness',
  '/Beauty & Fitness/Nail Care',
  '/Books & Literature',
  '/Books & Literature/Children\'s Literature',
  '/Business & Industrial',
  '/Business & Industrial/Office Supplies',
  '/Business & Industrial/Printing & Publishing',
  '/Business & Industrial/Packaging',
  '/Computers & Electronics',
  '/Computers & Electronics/Consumer Electronics',
  '/Computers & Electronics/Computer Hardware',
  '/Computers & Electronics/Software',
  '/Computers & Electronics/Mobile Phone Accessories',
  '/Food & Drink',
  '/Food & Drink/Beverages',
  '/Food & Drink/Coffee & Tea',
  '/Food & Drink/Wine',
  '/Food & Drink/Beer',
  '/Food & Drink/Spirits',
  '/Food & Drink/Candy & Sweets',
  '/Food & Drink/Baked Goods',
  '/Food & Drink/Snack Foods',
  '/Food & Drink/Gourmet & Specialty Foods',
  '/Food & Drink/Meat & Seafood',
  '/Food & Drink/Cooking & Recipes',
  '/Games',
  '/Games/Board Games',
  '/Games/Computer & Video Games',
  '/Games/Puzzles',
  '/Health',
  '/Health/Vitamins & Supplements',
  '/Health/Medical Devices & Equipment',
  '/Health/Pharmacy',
  '/Health/Oral & Dental Care',
  '/Health/Vision Care',
  '/Hobbies & Leisure',
  '/Hobbies & Leisure/Crafts',
  '/Hobbies & Leisure/Sewing',
  '/Hobbies & Leisure/Outdoors',
  '/Hobbies & Leisure/Camping & Hiking',
  '/Hobbies & Leisure/Fishing',
  '/Hobbies & Leisure/Hunting & Shooting',
  '/Hobbies & Leisure/Collectibles',
  '/Home & Garden',
  '/Home & Garden/Bed & Bath',
  '/Home & Garden/Home Furnishings',
  '/Home & Garden/Furniture',
  '/Home & Garden/Home Decor',
  '/Home & Garden/Kitchen & Dining',
  '/Home & Garden/Gardening & Landscaping',
  '/Home & Garden/Lighting',
  '/Home & Garden/Candles',
  '/Home & Garden/Home Improvement',
  '/Home & Garden/Cleaning Supplies',
  '/Jobs & Education',
  '/Jobs & Education/Education',
  '/People & Society',
  '/People & Society/Family & Relationships',
  '/People & Society/Religion & Belief',
  '/Pets & Animals',
  '/Pets & Animals/Pet Food & Supplies',
  '/Pets & Animals/Pets/Dogs',
  '/Pets & Animals/Pets/Cats',
  '/Pets & Animals/Pets/Fish & Aquaria',
  '/Pets & Animals/Pets/Horses',
  '/Shopping',
  '/Shopping/Gifts & Special Event Items',
  '/Shopping/Party Supplies',
  '/Shopping/Toys',
  '/Shopping/Tobacco & Vaping Products',
  '/Shopping/Luxury Goods',
  '/Sports',
  '/Sports/Sporting Goods',
  '/Sports/Cycling',
  '/Sports/Golf',
  '/Sports/Surfing',
  '/Sports/Skateboarding',
  '/Sports/Team Sports',
  '/Sports/Water Sports',
  '/Sports/Winter Sports',
  '/Travel',
  '/Travel/Luggage & Travel Accessories',
  '/Baby & Kids',
  '/Baby & Kids/Baby Care',
];

// Words people type for a path whose own words differ. Keys and values are normalised words.
const SYNONYMS: Record<string, string[]> = {
  shoe: ['footwear'], sneaker: ['footwear'], boot: ['footwear'], sandal: ['footwear'],
  clothe: ['apparel'], clothing: ['apparel'], fashion: ['apparel'], garment: ['apparel'], wear: ['apparel'], boutique: ['apparel'],
  tshirt: ['apparel'], shirt: ['apparel'], dress: ['apparel'],
  jewellery: ['jewelry'], ring: ['jewelry'], necklace: ['jewelry'],
  sunglass: ['eyewear'], glass: ['eyewear'], bag: ['handbag'],
  makeup: ['make', 'cosmetic'], cosmetic: ['cosmetic'], beauty: ['beauty'], skincare: ['skin'], haircare: ['hair'],
  perfume: ['perfume'], fragrance: ['fragrance'], gym: ['fitness'], yoga: ['fitness'],
  coffee: ['coffee'], tea: ['tea'], chocolate: ['candy'], sweet: ['candy'], bakery: ['baked'], cookie: ['baked'],
  drink: ['beverage'], juice: ['beverage'], liquor: ['spirit'], whisky: ['spirit'], whiskey: ['spirit'], brewery: ['beer'],
  food: ['food'], grocery: ['food'], snack: ['snack'],
  supplement: ['supplement'], vitamin: ['vitamin'], nutrition: ['supplement'], protein: ['supplement'],
  dental: ['dental'], toothbrush: ['dental'],
  dog: ['dog'], puppy: ['dog'], cat: ['cat'], kitten: ['cat'], pet: ['pet'], aquarium: ['fish'],
  furniture: ['furniture'], decor: ['decor'], bedding: ['bed'], kitchen: ['kitchen'], cookware: ['kitchen'],
  garden: ['gardening'], plant: ['gardening'], lamp: ['lighting'], candle: ['candle'],
  toy: ['toy'], game: ['game'], puzzle: ['puzzle'], gift: ['gift'], party: ['party'],
  vape: ['vaping'], cbd: ['vaping'],
  bike: ['bicycle', 'cycling'], bicycle: ['bicycle'], car: ['vehicle'], auto: ['vehicle'], motorbike: ['motorcycle'],
  electronic: ['electronic'], phone: ['mobile'], computer: ['computer'], software: ['software'], gadget: ['electronic'],
  book: ['book'], art: ['art'], print: ['art'], music: ['music'], vinyl: ['music'],
  craft: ['craft'], yarn: ['sewing'], fabric: ['sewing'], camping: ['camping'], hiking: ['hiking'], fishing: ['fishing'],
  golf: ['golf'], surf: ['surfing'], skate: ['skateboarding'], ski: ['winter'], snowboard: ['winter'], sport: ['sport'],
  luggage: ['luggage'], travel: ['travel'], baby: ['baby'], kid: ['kid'], child: ['kid'],
};

const STOP_WORDS = new Set(['and', 'the', 'of', 'for', 'store', 'stores', 'shop', 'shops', 'online', 'brand', 'brands', 'products', 'product', 'ecommerce', 'e']);

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
  return { path, leaf: new Set(normalisedWords(segments.at(-1) ?? '')), parents: new Set(segments.slice(0, -1).flatMap(normalisedWords)), depth: segments.length };
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
