import { matchCategoryPaths } from './storeleads-category-match';
import { P } from '../test/storeleads-category-aliases';

// 200 shop categories as buyers type them (store directories' and marketplaces' everyday names),
// each with the paths a person would agree with, written from the taxonomy. The issue asks that at
// least 95% map to such a path; the rest are the misses this measures, not failures of a row.

const COMMON = `
women's fashion | womens, apparel
men's fashion | mens, apparel
children's clothing | kidscl
baby clothing | kidscl
plus size clothing | apparel, womens
maternity clothes | apparel, womens
sustainable fashion | apparel, eco
vintage fashion | apparel, antiques
graphic tees | apparel
denim | apparel
jackets and coats | apparel
knitwear | apparel
sleepwear | casual
pajamas | casual
loungewear | casual
sportswear | athletic
gym clothes | athletic, fitness
swimsuits | swim
bras | under
socks and hosiery | under
sneakers | shoes
sandals | shoes
kids shoes | shoes
hats and caps | head
scarves | acc
belts | acc
leather goods | acc
fine jewelry | acc
silver jewelry | acc
engagement rings | acc
luxury watches | acc, luxury
sunglasses | eyewear
prescription glasses | eyewear, vision
halloween costumes | costumes, occasions
bridal wear | formal
cosmetics | makeup
makeup brushes | makeup
false eyelashes | makeup
skincare products | skin
korean skincare | skin
anti-aging | skin
nail art | skin
perfumes | perfume
body care | facebody
bath and body | facebody
men's grooming | hygiene
shampoo | hygiene, hair
hair products | hair
hair tools | hair
wigs and hair extensions | hair
organic beauty | beauty, skin
spa products | spas, facebody
fitness gear | fitness
dumbbells | fitness
yoga | fitness
pilates equipment | fitness
protein supplements | vits
vitamins and supplements | vits
herbal supplements | vits
health foods | fooditems, nutrition
keto products | weightloss, fooditems
cbd oil | pharmacy, health
medical equipment | medical
mobility aids | medical
oral care | dental
electric toothbrushes | dental
contact lenses | vision
home decor | decor
wall decor | decor
candles and home fragrance | decor
throw pillows | decor, furn, bed
furniture | furn
office furniture | furn
lighting and lamps | furn
rugs and carpets | furn
curtains | furn
bedding | bed
bath towels | bed
mattresses | bed
kitchen supplies | kitchen
cookware and bakeware | kitchen
kitchen knives | kitchen
coffee makers | kitchen
water bottles | kitchen
dinnerware | kitchen
small appliances | appliances
vacuum cleaners | cleaning
cleaning supplies | cleaning
home organization | storage
storage boxes | storage
garden supplies | garden
indoor plants | garden
flower seeds | garden
planters and pots | garden
garden furniture | furn, yard
outdoor lighting | yard
grills and smokers | kitchen
pool and spa | pools
tools and hardware | improve
diy supplies | improve, crafts
smart locks | security
home security systems | security
heating and cooling | hvac
baby products | nursery
baby gear | nursery
nursery decor | nursery, decor
toys | toys
toddler toys | toys
educational toys | toys, education
stem toys | toys, education
puzzles | puzzles
board games | boardgames
card games | cardgames
video games | videogames
gaming pcs | hardware, videogames
collectible figures | antiques
trading card games | cardgames
model trains | rc
remote control cars | rc
arts and crafts | crafts
scrapbooking supplies | crafts
sewing supplies | crafts
knitting yarn | crafts
art supplies | crafts
musical instruments | music
vinyl | music
books | books
used books | books
kids books | kidsbooks
comic books | comics
stationery | cards, bizserv
notebooks and planners | cards, bizserv
greeting cards | cards
gift shop | gifts
personalized gifts | gifts
gift boxes | gifts
flowers | flowers
party supplies | occasions
wedding favors | occasions, gifts
christmas ornaments | occasions, decor
pet supplies | petsup
dog accessories | dogs, petsup
cat supplies | cats, petsup
pet food | petsup
pet grooming | petsup
aquariums | fish
bird supplies | birds
equestrian gear | horses
coffee | bev
tea | bev
wine | bev
beer | bev
spirits | bev
non-alcoholic drinks | bev
snacks | fooditems
chocolates | fooditems
candy | fooditems
baked goods | fooditems
spices and seasonings | fooditems
sauces | fooditems
gourmet food | food, fooditems
organic groceries | grocery, fooditems
meat and seafood | fooditems
electronics | celec
phone accessories | mobile
phone cases | mobile
headphones and speakers | celec
computer accessories | hardware
cameras and photography | celec, art, photo
drones | celec
smart home | celec
gaming accessories | videogames, celec
car accessories | autos, vparts
auto parts | vparts
motorcycle accessories | vparts, motor
bicycles | bikes
electric bikes | bikes
scooters | bikes
camping gear | outdoors
hiking gear | outdoors
fishing gear | outdoors
hunting gear | outdoors
outdoor equipment | outdoors
golf equipment | indiv
tennis gear | indiv
running gear | indiv, athletic
cycling apparel | athletic, indiv, bikes
soccer gear | team
skateboards | indiv
surf shop | water
ski equipment | winter
martial arts supplies | combat
sporting goods | sportgoods
luggage | luggage
travel accessories | luggage
backpacks | acc
eco-friendly products | eco
zero waste products | eco
religious gifts | religion, gifts
crystals and gemstones | offbeat, religion
`
  .trim()
  .split('\n')
  .map((line) => {
    const [phrase, accepted] = line.split('|').map((s) => s.trim());
    return { phrase: phrase!, accepted: accepted!.split(',').map((a) => P[a.trim()]!) };
  });

describe('200 common shop categories', () => {
  it('when each is mapped, then at least 95% land on paths a buyer agrees with', () => {
    expect(COMMON).toHaveLength(200);
    const misses = COMMON.filter(({ phrase, accepted }) => {
      const got = matchCategoryPaths(phrase);
      return got.length === 0 || !got.every((path) => accepted.some((a) => path === a || path.startsWith(`${a}/`)));
    }).map(({ phrase }) => `${phrase} → ${matchCategoryPaths(phrase).join(' | ') || 'none'}`);
    const agreed = (COMMON.length - misses.length) / COMMON.length;
    // The misses are printed so the figure in the report is the one measured here.
    if (misses.length > 0) process.stdout.write(`category agreement ${(agreed * 100).toFixed(1)}%; misses:\n${misses.join('\n')}\n`);
    expect(agreed).toBeGreaterThanOrEqual(0.95);
  });
});
