import { STORELEADS_CATEGORY_PATHS } from './storeleads-category-paths';
import { matchCategoryPaths, nearestCategoryPaths } from './storeleads-category-match';
import { P } from '../test/storeleads-category-aliases';

// Written from the taxonomy (storeleads-categories.json) by asking which path a buyer typing the
// phrase would agree with, not from the lexicon: a phrase passes when it maps to at least one
// path and every path it maps to is one the row accepts (or lies under one).

// phrase | the paths a buyer would agree with (aliases above)
const TABLE = `
home decor | decor
home décor | decor
interior decor | decor
wall art | art, decor
candles | decor
scented candles | decor
picture frames | decor
vases | decor
pet supplies | petsup, pets
pet food | petsup
pet accessories | petsup
dog toys | dogs, petsup
dog treats | dogs, petsup
dog collars and leashes | dogs, petsup
cat toys | cats, petsup
cat litter | cats, petsup
aquarium supplies | fish
bird food | birds
horse tack | horses
equestrian | horses
reptile supplies | reptiles
toys | toys
kids toys | toys
educational toys | toys
wooden toys | toys
plush toys | stuffed, toys
stuffed animals | stuffed
lego | building
building blocks | building
dolls | dolls
toy cars | toyveh
kitchen | kitchen
kitchenware | kitchen
cookware | kitchen
kitchen gadgets | kitchen
knife sets | kitchen, outdoors
tableware | kitchen
coffee | bev
coffee beans | bev
specialty coffee | bev
tea | bev
loose leaf tea | bev
wine | bev
craft beer | bev
spirits | bev
kombucha | bev
energy drinks | bev
jewelry | acc
jewellery | acc
handmade jewelry | acc
rings | acc
necklaces | acc
earrings | acc
watches | acc
handbags | acc
backpacks | acc
wallets | acc
furniture | furn
sofas | furn
rugs | furn
lighting | furn
lamps | furn
outdoor furniture | furn, yard
electronics | celec
consumer electronics | celec
headphones | celec
cameras | celec
drones | celec
smart home devices | celec
phone cases | mobile
phone accessories | mobile
laptops | hardware
computer accessories | hardware
books | books
bookstore | books
children's books | kidsbooks
comics | comics
manga | comics
sports | sports
sporting goods | sportgoods
sports equipment | sportgoods
golf | indiv
tennis | indiv
running | indiv
cycling | indiv, bikes
soccer | team
basketball | team
surfing | water
skiing | winter
snowboards | winter
boxing gear | combat
martial arts | combat
clothing | apparel
clothes | apparel
apparel | apparel
fashion | apparel
women's clothing | womens
womens fashion | womens
dresses | womens
men's clothing | mens
menswear | mens
kids clothing | kidscl
baby clothes | kidscl
t-shirts | apparel
hoodies | apparel
streetwear | apparel
vintage clothing | apparel
activewear | athletic
yoga pants | athletic
leggings | athletic
swimwear | swim
bikinis | swim
lingerie | under
underwear | under
socks | under
shoes | shoes
sneakers | shoes
boots | shoes
running shoes | shoes
women's shoes | shoes
hats | head
caps | head
sunglasses | eyewear
eyeglasses | eyewear, vision
costumes | costumes
cosplay | costumes
wedding dresses | formal
suits | formal
cosmetics | makeup
makeup | makeup
lipstick | makeup
skincare | skin
skin care | skin
natural skincare | skin
nail polish | skin
perfume | perfume
fragrances | perfume
soap | hygiene
handmade soap | hygiene
beard oil | hygiene
shaving | hygiene, hairrem
deodorant | hygiene
bath bombs | facebody, hygiene
essential oils | facebody
hair care | hair
hair extensions | hair
wigs | hair
beauty | beauty
beauty products | beauty
tattoo supplies | bodyart
fitness equipment | fitness
gym equipment | fitness
yoga mats | fitness
home gym | fitness
supplements | vits
vitamins | vits
protein powder | vits
sports nutrition | vits
collagen | vits
cbd | pharmacy, health
dental care | dental
teeth whitening | dental
medical supplies | medical
first aid kits | medical
contact lenses | vision
sexual wellness | repro
health | health
wellness | health
weight loss | weightloss
meditation | mental
gardening | garden
plants | garden
houseplants | garden
seeds | garden
garden tools | garden
lawn care | yard
patio | yard
bbq grills | kitchen, yard
bedding | bed
towels | bed
bathroom accessories | bed
cleaning products | cleaning
eco cleaning | cleaning, eco
laundry detergent | laundry
storage and organization | storage
home improvement | improve
tools | improve
power tools | improve
hardware | improve, hardware
paint | improve, crafts
flooring | improve
home security | security
security cameras | security
hot tubs | pools
pool supplies | pools
air purifiers | appliances
home appliances | appliances
heaters | hvac
nursery | nursery
baby products | nursery
baby gear | nursery
strollers | nursery
diapers | nursery
pest control | pest
home and garden | home
home goods | home
food | food, fooditems
snacks | fooditems
chocolate | fooditems
candy | fooditems
bakery | fooditems
spices | fooditems
hot sauce | fooditems
honey | fooditems
cheese | fooditems
organic food | fooditems
gourmet food | food, fooditems
grocery | grocery
restaurants | restaurants
meal kits | cooking
gifts | gifts
gift shop | gifts
personalized gifts | gifts
gift baskets | gifts
greeting cards | cards
stationery | cards, bizserv
flowers | flowers
florist | flowers
party supplies | occasions
wedding supplies | occasions
christmas decorations | occasions
halloween | occasions, costumes
luxury goods | luxury
luxury | luxury
antiques | antiques
collectibles | antiques
trading cards | cardgames, antiques
funko pops | antiques
vape | tobacco
e-cigarettes | tobacco
cigars | tobacco
smoke shop | tobacco
board games | boardgames
puzzles | puzzles
jigsaw puzzles | puzzles
video games | videogames
gaming accessories | videogames
gaming | videogames
games | games
tabletop rpg | rpg
dice | rpg
crafts | crafts
craft supplies | crafts
art supplies | crafts
yarn | crafts
knitting | crafts
fabric | crafts
sewing | crafts
beads | crafts
stickers | crafts
camping | outdoors
camping gear | outdoors
hiking | outdoors
outdoor gear | outdoors
fishing | outdoors
fishing tackle | outdoors
hunting | outdoors
rc cars | rc
model kits | rc
airsoft | paintball
kayaks | wateract
musical instruments | music
guitars | music
vinyl records | music
music | music
art prints | art
posters | art
art | art
paintings | art
photography | art, celec, photo
movies | movies
car parts | vparts
auto parts | vparts
car accessories | autos, vparts
car care | autos
tires | vparts
bikes | bikes
e-bikes | bikes
bicycles | bikes
electric scooters | bikes
motorcycle gear | motor
motorcycles | motor
boats | boats
rv accessories | campers
luggage | luggage
travel accessories | luggage
suitcases | luggage
school supplies | education
educational | education
online courses | education
religious items | religion
christian gifts | religion, gifts
crystals | offbeat, religion
tarot cards | offbeat, religion, cards
astronomy | astronomy
telescopes | astronomy
lab equipment | science
office supplies | bizserv
packaging supplies | bizserv, packaging
industrial supplies | industrial
safety equipment | industrial
agriculture | agri
beekeeping | agri
farm supplies | animalprod, agri
adult toys | adult
sex toys | adult
eco friendly | eco
sustainable | eco
zero waste | eco
goth clothing | subcult, apparel
department store | department
general store | department
software | software
digital downloads | software
printing | printing
textiles | textiles
Schuhe | shoes
Damenmode | womens
Herrenmode | mens
Kinderkleidung | kidscl
Schmuck | acc
Uhren | acc
Kosmetik | makeup
Naturkosmetik | skin
Parfüm | perfume
Möbel | furn
Wohnaccessoires | decor
Küche | kitchen
Kaffee | bev
Wein | bev
Tierbedarf | petsup
Hundezubehör | dogs, petsup
Spielzeug | toys
Bücher | books
Elektronik | celec
Garten | garden
Werkzeug | improve
Fahrrad | bikes
Geschenke | gifts
Bastelbedarf | crafts
Nahrungsergänzungsmittel | vits
chaussures | shoes
vêtements | apparel
vêtements femme | womens
bijoux | acc
maquillage | makeup
cosmétiques | makeup
soins de la peau | skin
décoration | decor
meubles | furn
cuisine | kitchen
café | bev, restaurants
vin | bev
animalerie | petsup
jouets | toys
livres | books
jardinage | garden
cadeaux | gifts
fleuriste | flowers
épicerie fine | fooditems
ropa | apparel
ropa de mujer | womens
zapatos | shoes
joyería | acc
cosméticos | makeup
decoración | decor
muebles | furn
juguetes | toys
mascotas | petsup
libros | books
vinos | bev
regalos | gifts
abbigliamento | apparel
scarpe | shoes
gioielli | acc
arredamento | furn
giocattoli | toys
animali domestici | petsup
caffè | bev
kleding | apparel
schoenen | shoes
sieraden | acc
speelgoed | toys
huisdieren | petsup
woondecoratie | decor
roupa | apparel
sapatos | shoes
brinquedos | toys
joias | acc
kläder | apparel
smycken | acc
leksaker | toys
legetøj | toys
odzież | apparel
buty | shoes
zabawki | toys
`
  .trim()
  .split('\n')
  .map((line) => {
    const [phrase, accepted] = line.split('|').map((s) => s.trim());
    return [phrase!, accepted!.split(',').map((a) => P[a.trim()]!)] as const;
  });

function agrees(got: string[], accepted: readonly string[]): boolean {
  return got.length > 0 && got.every((path) => accepted.some((a) => path === a || path.startsWith(`${a}/`)));
}

describe('free text to Store Leads paths: what buyers type', () => {
  it('when the table is read, then every accepted path is one the taxonomy has', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(300);
    for (const [, accepted] of TABLE) for (const path of accepted) expect(STORELEADS_CATEGORY_PATHS).toContain(path);
  });

  it.each(TABLE)('when a buyer types "%s", then the paths are ones they agree with', (phrase, accepted) => {
    const got = matchCategoryPaths(phrase);
    expect({ phrase, got, agrees: agrees(got, accepted) }).toEqual({ phrase, got, agrees: true });
  });

  it.each([
    ['home decor', ['/Home & Garden/Home & Interior Decor']],
    ['coffee', ['/Food & Drink/Beverages']],
    ['home and garden', ['/Home & Garden']],
    ['pets', ['/Pets & Animals']],
    ['beauty', ['/Beauty & Fitness']],
    ['dog food', ['/Pets & Animals/Dogs', '/Pets & Animals/Pet Food & Supplies']],
    ['coffee and wine', ['/Food & Drink/Beverages']],
    ['candles and furniture', ['/Home & Garden/Home & Interior Decor', '/Home & Garden/Home Furnishings']],
    ['home and garden decor', ['/Home & Garden/Home & Interior Decor']],
    ['apparel & footwear', ['/Apparel', '/Apparel/Footwear']],
    ['Schmuck und Uhren', ['/Apparel/Clothing Accessories']],
    ["women's shoes", ['/Apparel/Footwear']],
    ['women', ["/Apparel/Women's Clothing"]],
    ['jewlery', ['/Apparel/Clothing Accessories']],
  ])(
    'when the category is "%s", then exactly these paths: a top level when only it is named, several when it is ambiguous',
    (text, paths) => {
      expect(matchCategoryPaths(text)).toEqual(paths);
    },
  );

  it.each(['plumber', 'dentist', 'xyzzy', 'asdf qwerty', '   '])('when the category is "%s", then it names no path', (text) => {
    expect(matchCategoryPaths(text)).toEqual([]);
  });

  it('when a category names no path, then the three nearest are real paths, the likeliest first', () => {
    const near = nearestCategoryPaths('jewellry shop', 3);
    expect(near).toHaveLength(3);
    for (const path of near) expect(STORELEADS_CATEGORY_PATHS).toContain(path);
    expect(near[0]).toBe('/Apparel/Clothing Accessories');
    expect(nearestCategoryPaths('plumbing contractor')).toContain('/Home & Garden/Home Improvement');
  });
});
